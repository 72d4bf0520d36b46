import { beforeAll, describe, expect, it } from "vitest";
import { createPost } from "../../core/posts/posts-service.js";
import { buildUser, type TestUser } from "../support/factories.js";
import { type Reply } from "../support/http.js";
import { pngImage, uploadedFiles } from "../support/images.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";

// The per-address limits of server/api/rate-limits.ts on the writes people abuse: each test does
// the allowed number of real writes, then one more, which is refused and leaves nothing behind.

const {
  server,
  api,
  admin,
  users: { author },
} = await openTestSite({ env: { RATE_LIMITS: "on" }, users: ["author"] });

let category: string;

beforeAll(async () => {
  category = (await addCategory(api, admin, "Limits")).title;
});
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

  it("takes 30 post edits in 5 minutes, refuses the 31st with 429 and leaves the post as it was", async () => {
    // Made through the service: the upload allowance is another test's to spend.
    const post = await createPost(
      server.app.deps,
      { id: author.id, isAdmin: false },
      { fields: { title: "Edits", category, description: "Start" }, image: await pngImage() },
    );
    const edit = (n: number) =>
      api.put(
        `/api/posts/${post._id}`,
        { title: "Edited", category, description: `# Edit ${String(n)}` },
        { token: author.token },
      );
    let n = 0;
    expect(await repeat(30, () => edit((n += 1)))).toEqual(Array<number>(30).fill(200));
    expectTooMany(await edit(31));
    const stored = await api.get<{ description: string }>(`/api/posts/${post._id}`);
    expect(stored.body.description).toBe("# Edit 30");
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

  it("takes 30 uploads in 15 minutes across the image routes, then refuses each: no row, no file", async () => {
    const other = await buildUser(server, api);
    const image = await pngImage(8, 8);
    const create = () =>
      api.form(
        "POST",
        "/api/posts",
        { fields: { title: "t", category, description: "d" }, file: { bytes: image } },
        { token: author.token },
      );
    const firstPost = await server.app.deps.db
      .selectFrom("posts")
      .select("id")
      .where("user_id", "=", author.id)
      .executeTakeFirstOrThrow();
    const replace = (user: TestUser) =>
      api.form(
        "PUT",
        `/api/posts/post-image/${firstPost.id}`,
        { file: { bytes: image } },
        { token: user.token },
      );
    const photo = () =>
      api.form(
        "POST",
        "/api/users/profile/profile-photo",
        { file: { bytes: image } },
        { token: author.token },
      );

    // Two posts were made above through /api/posts already: 28 more uploads, spread over the
    // three routes. Refusals count too: the limit is on the address, whoever is signed in.
    expect(await repeat(8, create)).toEqual(Array<number>(8).fill(201));
    expect((await replace(other)).status).toBe(403);
    expect(await repeat(9, () => replace(author))).toEqual(Array<number>(9).fill(200));
    expect(await repeat(10, photo)).toEqual(Array<number>(10).fill(200));

    const state = async () => ({
      posts: await countRows("posts"),
      images: await server.app.deps.db.selectFrom("posts").select("image_key").execute(),
      photo: await server.app.deps.db
        .selectFrom("users")
        .select("photo_key")
        .where("id", "=", author.id)
        .executeTakeFirstOrThrow(),
    });
    const before = await state();
    const files = await uploadedFiles(server);
    expectTooMany(await create());
    expectTooMany(await replace(author));
    expectTooMany(await photo());
    expect(await state()).toEqual(before);
    expect(await uploadedFiles(server)).toEqual(files);
  });
});
