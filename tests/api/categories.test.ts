import { describe, expect, it } from "vitest";
import { openTestSite } from "../support/site.js";

const {
  api,
  admin,
  users: { user },
} = await openTestSite({ users: ["user"] });

describe("POST /api/categories", () => {
  it("refuses anonymous callers with 401 and users with 403", async () => {
    expect((await api.post("/api/categories", { title: "Travel" })).status).toBe(401);
    const reply = await api.post("/api/categories", { title: "Travel" }, { token: user.token });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ message: "Only admins may do this" });
  });

  it.each([
    [{}, "Title is required"],
    [{ title: "" }, "Title is required"],
    [{ title: "   " }, "Title is required"],
    [{ title: "a" }, "Title is too short - should be 2 chars minimum."],
    [{ title: "a".repeat(51) }, "Title is too long - should be 50 chars maximum."],
  ])("refuses %j with 400", async (body, message) => {
    const reply = await api.post("/api/categories", body, { token: admin.token });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message, errors: { title: message } });
  });

  it("adds a category, and refuses the same title in any case with 409", async () => {
    const reply = await api.post("/api/categories", { title: " Travel " }, { token: admin.token });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ title: "Travel" });
    expect(reply.body._id).toBe(reply.body.id);
    for (const title of ["Travel", "TRAVEL", "travel"]) {
      const again = await api.post("/api/categories", { title }, { token: admin.token });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ message: "Category already exists" });
    }
  });
});

describe("GET /api/categories", () => {
  it("lists every category by title, to anyone", async () => {
    await api.post("/api/categories", { title: "Music" }, { token: admin.token });
    await api.post("/api/categories", { title: "art" }, { token: admin.token });
    const reply = await api.get<{ _id: string; title: string }[]>("/api/categories");
    expect(reply.status).toBe(200);
    expect(reply.body.map((c) => c.title)).toEqual(["art", "Music", "Travel"]);
    expect(Object.keys(reply.body[0] ?? {}).sort()).toEqual(["_id", "createdAt", "id", "title"]);
  });
});

describe("DELETE /api/categories/:id", () => {
  it("refuses anonymous callers, users, and unknown or malformed ids", async () => {
    const [first] = (await api.get<{ _id: string }[]>("/api/categories")).body;
    const id = first?._id ?? "";
    expect((await api.delete(`/api/categories/${id}`)).status).toBe(401);
    expect((await api.delete(`/api/categories/${id}`, { token: user.token })).status).toBe(403);
    for (const bad of ["00000000-0000-4000-8000-000000000000", "abc", "1%20OR%201=1"]) {
      const reply = await api.delete(`/api/categories/${bad}`, { token: admin.token });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ message: "Category not found" });
    }
  });

  it("deletes a category for an admin", async () => {
    const created = await api.post<{ _id: string }>(
      "/api/categories",
      { title: "Doomed" },
      { token: admin.token },
    );
    const reply = await api.delete(`/api/categories/${created.body._id}`, { token: admin.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      categoryId: created.body._id,
      message: "Category has been deleted successfully",
    });
    const titles = (await api.get<{ title: string }[]>("/api/categories")).body.map((c) => c.title);
    expect(titles).not.toContain("Doomed");
    expect(
      (await api.delete(`/api/categories/${created.body._id}`, { token: admin.token })).status,
    ).toBe(404);
  });
});

describe("GET /api/categories/category/:category", () => {
  it("refuses a page number that is not a whole number from 1", async () => {
    for (const page of ["0", "-1", "abc", "1.5"]) {
      const reply = await api.get(`/api/categories/category/Travel?pageNumber=${page}`);
      expect(reply.status).toBe(400);
    }
  });

  it("answers an empty page for a category without posts", async () => {
    const reply = await api.get("/api/categories/category/Travel?pageNumber=1");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });
});
