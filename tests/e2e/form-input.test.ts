import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { addCategory, addComment, addPost, type PostDetail } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { postForm } from "../support/form-post.js";

// No browser: the site's own forms (React Router actions) sent malformed bodies straight, as a
// script would, from this origin and signed in where the form needs it. The API has the same
// property test (tests/reliability/bad-input.test.ts); these routes parse their own bodies.

let server: TestServer;
let member: TestUser;
let admin: TestUser;
let post: PostDetail;

beforeAll(async () => {
  server = await startTestServer();
  const api = client(server.url);
  admin = await signInAdmin(server, api);
  member = await buildUser(server, api);
  await addCategory(api, admin, "Forms");
  post = await addPost(api, member, { category: "Forms" });
  await addComment(api, member, post._id, "Kept as it is");
});
afterAll(() => server.close());
failOnServerErrors(() => server);

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", "\u0000", "' OR 1=1 --", "../..", "a".repeat(30_000), "[object Object]"),
);

const FIELDS = [
  "intent",
  "email",
  "password",
  "confirmPassword",
  "username",
  "title",
  "description",
  "category",
  "text",
  "commentId",
  "bio",
  "socialMedia.0.name",
  "socialMedia.0.url",
  "socialMedia.9.url",
  "id",
  "redirectTo",
];
// Not "comment": any text of two characters is a good comment, so it would be stored, rightly.
const INTENTS = [
  "like",
  "edit-comment",
  "delete-comment",
  "edit-post",
  "post-image",
  "edit-profile",
  "photo",
  "upload",
  "delete",
  "nope",
];

const formBody = fc
  .tuple(
    fc.option(fc.constantFrom(...INTENTS), { nil: undefined }),
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), oddText), { maxLength: 8 }),
  )
  .map(([intent, pairs]) => {
    const body = new URLSearchParams();
    if (intent) body.append("intent", intent);
    for (const [name, value] of pairs) body.append(name, value.replace(/[\uD800-\uDFFF]/g, "?"));
    return body.toString();
  });

const LEAKS = [/\n\s+at /, /node_modules/, /\.[cm]?[jt]sx?:\d+/, /SQLITE_|syntax error at/i];

async function stored() {
  const db = server.app.deps.db;
  // Not categories: the admin's category form takes any title of 2 to 50 characters, so random
  // text is often a good one, and is added, rightly.
  const [users, posts, comments] = await Promise.all([
    db.selectFrom("users").select(["id", "username", "email", "bio", "password_hash"]).execute(),
    db.selectFrom("posts").select(["id", "title", "description", "category"]).execute(),
    db.selectFrom("comments").select(["id", "text"]).execute(),
  ]);
  return { users, posts, comments };
}

describe("malformed bodies at the site's forms", () => {
  it("never fail the server, leak its insides, or change what is stored", async () => {
    const before = await stored();
    const forms: { path: string; as?: TestUser }[] = [
      { path: "/login" },
      { path: "/register" },
      { path: "/forgot-password" },
      { path: `/reset-password/${member.id}/not-a-token` },
      { path: "/posts/create-post", as: member },
      { path: `/posts/details/${post._id}`, as: member },
      { path: `/posts/details/${post._id}`, as: admin },
      { path: `/profile/${member.id}`, as: member },
      { path: `/profile/${admin.id}`, as: member },
      { path: "/admin-dashboard", as: admin },
      { path: "/admin-dashboard/categories-table", as: admin },
      { path: "/admin-dashboard/comments-table", as: admin },
      { path: "/admin-dashboard/posts-table", as: admin },
      { path: "/admin-dashboard/users-table", as: admin },
    ];
    for (const form of forms) {
      await fc.assert(
        fc.asyncProperty(formBody, fc.boolean(), async (body, dataRequest) => {
          // The browser posts to the page's address, or to its `.data` twin when scripts run.
          const path = dataRequest ? `${form.path}.data` : form.path;
          const response = await postForm(
            server,
            path,
            body,
            form.as ? { cookie: `session=${form.as.token}` } : {},
          );
          const text = await response.text();
          const what = `POST ${path} ${body.slice(0, 200)}`;
          expect(response.status, `${what} -> ${text.slice(0, 300)}`).toBeLessThan(500);
          for (const leak of LEAKS)
            expect(text, `${what} leaked ${String(leak)}`).not.toMatch(leak);
        }),
        { numRuns: 30 },
      );
    }
    // No body named a real row to delete or a whole valid edit: the people, posts and the comment
    // stand as they were.
    expect(await stored()).toEqual(before);
  }, 240_000);
});
