import { beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../../core/shared/clock.js";
import { buildUser, type TestUser } from "../support/factories.js";
import { type Reply } from "../support/http.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { pngImage } from "../support/images.js";
import { openTestSite } from "../support/site.js";

/**
 * Spam brakes (decision 013): in its first day an account may publish 3 posts and write 10
 * comments an hour; older accounts only meet the regular per-address limits.
 */
const { server, api, admin } = await openTestSite({ env: { NEW_ACCOUNT_LIMITS: "on" } });

let category: string;

beforeAll(async () => {
  category = (await addCategory(api, admin, "Brakes")).title;
});

async function ageAccount(user: TestUser, ms: number) {
  await server.app.deps.db
    .updateTable("users")
    .set({ created_at: new Date(Date.now() - ms).toISOString() })
    .where("id", "=", user.id)
    .execute();
}

async function countOf(table: "posts" | "comments", user: TestUser) {
  const row = await server.app.deps.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("user_id", "=", user.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function expectBrake(reply: Reply, message: RegExp) {
  expect(reply.status, reply.text).toBe(429);
  expect(reply.body).toEqual({ message: expect.stringMatching(message) as unknown });
  expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
}

const comment = (user: TestUser, postId: string) =>
  api.post("/api/comments", { text: "Hello there", postId }, { token: user.token });

describe("a new account's first day", () => {
  it("takes 10 comments an hour and refuses the 11th with 429, storing nothing", async () => {
    const post = await addPost(api, admin, { category });
    const fresh = await buildUser(server, api);
    for (let i = 0; i < 10; i += 1) expect((await comment(fresh, post._id)).status).toBe(201);
    expectBrake(await comment(fresh, post._id), /^New accounts may write 10 comments an hour/);
    expect(await countOf("comments", fresh)).toBe(10);
  });

  it("takes 3 posts an hour and refuses the 4th with 429, storing nothing", async () => {
    const fresh = await buildUser(server, api);
    for (let i = 0; i < 3; i += 1) await addPost(api, fresh, { category });
    const reply = await api.form(
      "POST",
      "/api/posts",
      {
        fields: { title: "One more", category, description: "Words" },
        file: { bytes: await pngImage() },
      },
      { token: fresh.token },
    );
    expectBrake(reply, /^New accounts may publish 3 posts an hour/);
    expect(await countOf("posts", fresh)).toBe(3);
  });

  it("counts the posts it put out, not its drafts, and brakes a draft put out past the limit", async () => {
    const fresh = await buildUser(server, api);
    const drafts = [];
    for (let i = 0; i < 4; i += 1)
      drafts.push(await addPost(api, fresh, { category, status: "draft" }));
    // Four drafts, then a post published and one scheduled: two out, one more allowed.
    await addPost(api, fresh, { category });
    const later = new Date(Date.now() + 2 * HOUR_MS).toISOString();
    await addPost(api, fresh, { category, status: "scheduled", publishAt: later });
    const [first, second] = drafts;
    const publish = (id: string) =>
      api.put(`/api/posts/${id}`, { status: "published" }, { token: fresh.token });
    expect((await publish(first?._id ?? "")).status).toBe(200);
    // The fourth out is refused, and the draft stays one.
    expectBrake(await publish(second?._id ?? ""), /^New accounts may publish 3 posts an hour/);
    const kept = await api.get<{ status: string }>(`/api/posts/${second?._id ?? ""}`, {
      token: fresh.token,
    });
    expect(kept.body.status).toBe("draft");
    // Drafts still go in: saving one puts nothing out.
    await addPost(api, fresh, { category, status: "draft" });
    expect(await countOf("posts", fresh)).toBe(7);
  });

  it("counts a scheduled post once: publishing it now is allowed, scheduling past the limit is not", async () => {
    const fresh = await buildUser(server, api);
    const later = new Date(Date.now() + 2 * HOUR_MS).toISOString();
    await addPost(api, fresh, { category });
    await addPost(api, fresh, { category });
    const scheduled = await addPost(api, fresh, {
      category,
      status: "scheduled",
      publishAt: later,
    });
    // Its own count is not held against it when it goes out at once.
    const now = await api.put(
      `/api/posts/${scheduled._id}`,
      { status: "published" },
      { token: fresh.token },
    );
    expect(now.status, now.text).toBe(200);
    const draft = await addPost(api, fresh, { category, status: "draft" });
    const refused = await api.put(
      `/api/posts/${draft._id}`,
      { status: "scheduled", publishAt: later },
      { token: fresh.token },
    );
    expectBrake(refused, /^New accounts may publish 3 posts an hour/);
  });

  it("does not hold back an account older than a day, nor an admin", async () => {
    const post = await addPost(api, admin, { category });
    const settled = await buildUser(server, api);
    await ageAccount(settled, 25 * HOUR_MS);
    for (let i = 0; i < 12; i += 1) expect((await comment(settled, post._id)).status).toBe(201);
    for (let i = 0; i < 12; i += 1) expect((await comment(admin, post._id)).status).toBe(201);
  });
});
