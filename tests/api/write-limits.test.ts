import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client, type Reply } from "../support/http.js";
import { pngImage, uploadedFiles } from "../support/images.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// The per-address limits of server/api/rate-limits.ts on the writes people abuse: each test does
// the allowed number of real writes, then one more, which is refused and leaves nothing behind.

let server: TestServer;
let api: Client;
let author: TestUser;
let category: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMITS: "on" });
  api = client(server.url);
  const admin = await signInAdmin(server, api);
  author = await buildUser(server, api);
  category = (await addCategory(api, admin, "Limits")).title;
});
afterAll(() => server.close());
failOnServerErrors(() => server);

const TOO_MANY = /^Too many requests, please try again in \d+ minutes?$/;

function expectTooMany(reply: Reply) {
  expect(reply.status, reply.text).toBe(429);
  expect(reply.body).toEqual({ message: expect.stringMatching(TOO_MANY) as unknown });
  expect(reply.headers.get("retry-after")).toMatch(/^\d+$/);
}

async function repeat(times: number, call: () => Promise<Reply>) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i += 1) statuses.push((await call()).status);
  return statuses;
}

const countRows = async (table: "comments" | "posts" | "likes") =>
  Number(
    (
      await server.app.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("per-address limits on writes", () => {
  it("takes 30 comments in 5 minutes, refuses the 31st with 429 and stores nothing of it", async () => {
    const post = await addPost(api, author, { category });
    const comment = () =>
      api.post("/api/comments", { text: "Nice post", postId: post._id }, { token: author.token });
    expect(await repeat(30, comment)).toEqual(Array<number>(30).fill(201));
    expectTooMany(await comment());
    expect(await countRows("comments")).toBe(30);
  });

  it("takes 120 likes in 5 minutes and refuses the 121st, which changes nothing", async () => {
    const post = await addPost(api, author, { category });
    const like = () => api.put(`/api/posts/like/${post._id}`, undefined, { token: author.token });
    expect(await repeat(119, like)).toEqual(Array<number>(119).fill(200));
    // 119 toggles: liked. The 120th unlikes; the 121st would like again but is refused.
    expect((await like()).status).toBe(200);
    expectTooMany(await like());
    expect(await countRows("likes")).toBe(0);
  });

  it("takes 30 new posts with images in 15 minutes and refuses the 31st: no row, no file", async () => {
    const before = await countRows("posts");
    const image = await pngImage(8, 8);
    const create = () =>
      api.form(
        "POST",
        "/api/posts",
        { fields: { title: "t", category, description: "d" }, file: { bytes: image } },
        { token: author.token },
      );
    // Two posts were made above through this route already.
    expect(await repeat(28, create)).toEqual(Array<number>(28).fill(201));
    const files = await uploadedFiles(server);
    expectTooMany(await create());
    expect(await countRows("posts")).toBe(before + 28);
    expect(await uploadedFiles(server)).toEqual(files);
  });

  it("takes 30 image replacements in 15 minutes and refuses the 31st, which keeps the image", async () => {
    const other = await buildUser(server, api);
    const post = await server.app.deps.db
      .selectFrom("posts")
      .select(["id", "image_key"])
      .where("user_id", "=", author.id)
      .executeTakeFirstOrThrow();
    const image = await pngImage(8, 8);
    const replace = (user: TestUser) =>
      api.form(
        "PUT",
        `/api/posts/post-image/${post.id}`,
        { file: { bytes: image } },
        {
          token: user.token,
        },
      );
    // Refusals count too: the limit is on the address, whoever is signed in.
    expect((await replace(other)).status).toBe(403);
    expect(await repeat(29, () => replace(author))).toEqual(Array<number>(29).fill(200));
    const kept = await server.app.deps.db
      .selectFrom("posts")
      .select("image_key")
      .where("id", "=", post.id)
      .executeTakeFirstOrThrow();
    const files = await uploadedFiles(server);
    expectTooMany(await replace(author));
    expect(
      await server.app.deps.db
        .selectFrom("posts")
        .select("image_key")
        .where("id", "=", post.id)
        .executeTakeFirstOrThrow(),
    ).toEqual(kept);
    expect(await uploadedFiles(server)).toEqual(files);
  });

  it("takes 30 profile photos in 15 minutes and refuses the 31st, which keeps the photo", async () => {
    const image = await pngImage(8, 8);
    const upload = () =>
      api.form(
        "POST",
        "/api/users/profile/profile-photo",
        { file: { bytes: image } },
        { token: author.token },
      );
    expect(await repeat(30, upload)).toEqual(Array<number>(30).fill(200));
    const photo = await server.app.deps.db
      .selectFrom("users")
      .select("photo_key")
      .where("id", "=", author.id)
      .executeTakeFirstOrThrow();
    const files = await uploadedFiles(server);
    expectTooMany(await upload());
    expect(
      await server.app.deps.db
        .selectFrom("users")
        .select("photo_key")
        .where("id", "=", author.id)
        .executeTakeFirstOrThrow(),
    ).toEqual(photo);
    expect(await uploadedFiles(server)).toEqual(files);
  });
});
