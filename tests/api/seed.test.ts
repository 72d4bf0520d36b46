import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DEMO_PASSWORD, seedDemo } from "../../bench/seed.js";
import { openTestSite } from "../support/site.js";

const { server, api } = await openTestSite();

describe("npm run seed:demo", () => {
  const seed = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", "bench/seed.ts", ...args], {
      encoding: "utf8",
      env: { ...process.env, DATA_DIR: "/nonexistent-on-purpose" },
    });

  it("refuses an unknown option with its usage (exit 2), and --help prints the usage", () => {
    const unknown = seed("--nope");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--nope'");
    expect(unknown.stderr).toContain("Usage: npm run seed:demo -- [options]");
    for (const flag of ["--help", "-h"]) {
      const help = seed(flag);
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toContain("--comments N");
      expect(help.stdout).toContain(DEMO_PASSWORD);
    }
  });

  it("fills the database with content the API serves", async () => {
    const made = await seedDemo(server.app.deps.db, server.app.deps.storage, {
      users: 5,
      categories: 3,
      posts: 14,
      likes: 30,
      comments: 20,
    });
    expect(made).toEqual({ users: 5, categories: 3, posts: 14, likes: 30, comments: 20 });

    expect((await api.get("/api/posts/count")).text).toBe("14");
    expect((await api.get<unknown[]>("/api/categories")).body).toHaveLength(3);
    const page =
      await api.get<{ _id: string; image: { url: string }; likesCount: number }[]>(
        "/api/posts?pageNumber=3",
      );
    expect(page.body).toHaveLength(2);
    const image = await fetch(page.body[0]?.image.url ?? "");
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/webp");

    const all = await api.get<{ likesCount: number; commentsCount: number }[]>("/api/posts");
    expect(all.body.reduce((sum, post) => sum + post.likesCount, 0)).toBe(30);
    expect(all.body.reduce((sum, post) => sum + post.commentsCount, 0)).toBe(20);

    const user = await server.app.deps.db
      .selectFrom("users")
      .select("email")
      .where("is_admin", "=", 0)
      .executeTakeFirstOrThrow();
    const login = await api.post("/api/auth/login", { email: user.email, password: DEMO_PASSWORD });
    expect(login.status).toBe(200);
  });
});
