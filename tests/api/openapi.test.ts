import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  buildOpenApiDocument,
  collectApiRoutes,
  openApiPath,
  undocumentedRoutes,
} from "../../server/api/openapi/document.js";
import { documented } from "../../server/api/openapi/route-docs.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client, type Reply } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory, addComment, addPost } from "../support/post-fixtures.js";
import { SITE_BUILT, startTestServer, type TestServer } from "../support/test-server.js";

/** GET /api/openapi.json (DESIGN.md 9, Ecosystem): complete, valid, and true to the answers. */
let server: TestServer;
let api: Client;
let admin: TestUser;
let author: TestUser;
let reader: TestUser;

type Json = Record<string, unknown>;
interface Operation {
  security?: Json[];
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Json }> }>;
}
type Document = Json & {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
};

let document: Document;
/** The same document with every $ref replaced by what it names (the validator's own reading). */
let resolved: Document;
const ajv = new Ajv2020({ allErrors: true });

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  // Counted views are written at once, so the stats calls answer with rows in every list.
  server = await startTestServer({}, { viewFlushMs: 100 });
  api = client(server.url);
  admin = await signInAdmin(server, api);
  author = await buildUser(server, api);
  reader = await buildUser(server, api);
  await addCategory(api, admin, "General");
  const reply = await api.get<Document>("/api/openapi.json");
  expect(reply.status).toBe(200);
  document = reply.body;
});
afterAll(() => server.close());

const operation = (method: string, path: string) => document.paths[path]?.[method.toLowerCase()];

/**
 * The answer's status is one the reference lists for the call, and its body validates against the
 * schema listed for that status: a missing, mistyped or undocumented field fails (objects in the
 * document admit no other properties).
 */
function expectDocumented(method: string, path: string, reply: Reply) {
  const documented = resolved.paths[path]?.[method.toLowerCase()];
  expect(documented, `${method} ${path} is not in the reference`).toBeDefined();
  const answer = documented?.responses[String(reply.status)];
  expect(answer, `${method} ${path} answered ${String(reply.status)}: ${reply.text}`).toBeDefined();
  const schema = answer?.content?.["application/json"]?.schema;
  if (!schema) {
    expect(reply.text, `${method} ${path} ${String(reply.status)} has no documented body`).toBe("");
    return;
  }
  const validate = ajv.compile(schema);
  const valid = validate(reply.body);
  expect(
    valid,
    `${method} ${path} ${String(reply.status)}: ${JSON.stringify(validate.errors)}\n${reply.text.slice(0, 500)}`,
  ).toBe(true);
}

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document that a validator accepts", async () => {
    expect(document.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    resolved = validator.resolveRefs() as Document;
  });

  it("documents every /api route the server registers, and no route it does not", () => {
    const routes = server.app.apiRoutes;
    expect(undocumentedRoutes(routes)).toEqual([]);
    const registered = routes
      .filter((route) => route.docs !== undefined && !("hidden" in route.docs))
      .map((route) => `${route.method.toLowerCase()} ${openApiPath(route.url)}`);
    const listed = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual([...new Set(registered)].sort());
    // Asked of Fastify's router itself, not of the table the document was made from.
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) {
        const url = path.replace(/\{([^}]+)\}/g, ":$1");
        expect(
          server.app.server.hasRoute({ method: method.toUpperCase(), url }),
          `${method} ${path}`,
        ).toBe(true);
      }
    }
  });

  it("lists the 31 calls of SPEC.md 7, logout, and the calls added since", () => {
    const calls = [
      "POST /api/auth/login",
      "POST /api/auth/register",
      "GET /api/auth/{userId}/verify/{token}",
      "POST /api/password/reset-password-link",
      "GET /api/password/reset-password/{userId}/{token}",
      "POST /api/password/reset-password/{userId}/{token}",
      "GET /api/categories",
      "POST /api/categories",
      "DELETE /api/categories/{id}",
      "GET /api/categories/category/{category}",
      "GET /api/posts",
      "GET /api/posts/count",
      "GET /api/posts/{id}",
      "POST /api/posts",
      "PUT /api/posts/{id}",
      "PUT /api/posts/post-image/{id}",
      "PUT /api/posts/like/{id}",
      "DELETE /api/posts/{id}",
      "GET /api/comments",
      "POST /api/comments",
      "PUT /api/comments/{id}",
      "DELETE /api/comments/{id}",
      "GET /api/users/count",
      "GET /api/users/profile",
      "GET /api/users/profile/{id}",
      "GET /api/users/user/{id}",
      "PUT /api/users/profile/{id}",
      "POST /api/users/profile/profile-photo",
      "DELETE /api/users/profile/{id}",
      // Added: logout, drafts, body images, moderation, the reference itself.
      "POST /api/auth/logout",
      "GET /api/users/me/posts",
      "POST /api/posts/images",
      "POST /api/reports",
      "GET /api/reports",
      "PUT /api/reports/{id}",
      "PUT /api/users/suspend/{id}",
      "GET /api/admin/audit",
      "GET /api/settings",
      "PUT /api/admin/settings",
      "GET /api/openapi.json",
      "GET /api/search",
      "PUT /api/users/follow/{id}",
      "GET /api/posts/feed",
      "PUT /api/posts/bookmark/{id}",
      "GET /api/users/me/bookmarks",
      "GET /api/notifications",
      "POST /api/notifications/read",
    ];
    const missing = calls.filter((call) => {
      const [method = "", path = ""] = call.split(" ");
      return operation(method, path) === undefined;
    });
    expect(missing).toEqual([]);
  });

  it("gives each call the refusals of DESIGN.md 5 it can answer with", () => {
    const create = operation("POST", "/api/posts");
    expect(Object.keys(create?.responses ?? {}).sort()).toEqual(
      // 403: a read-only API token (decision 025).
      ["201", "400", "401", "403", "413", "415", "429", "503"].sort(),
    );
    expect(create?.responses["403"]?.description).toBe("A read-only API token");
    // Account changes refuse every API token.
    expect(operation("POST", "/api/auth/2fa/setup")?.responses["403"]?.description).toBe(
      "An API token: account changes need a session",
    );
    expect(create?.security).toEqual([{ bearerAuth: [] }]);
    expect(create?.responses["400"]?.content?.["application/json"]?.schema).toEqual({
      anyOf: [
        { $ref: "#/components/schemas/ValidationError" },
        { $ref: "#/components/schemas/Error" },
      ],
    });
    expect(create?.responses["401"]?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/Error",
    });

    const removeCategory = operation("DELETE", "/api/categories/{id}");
    expect(Object.keys(removeCategory?.responses ?? {}).sort()).toEqual(
      ["200", "401", "403", "404"].sort(),
    );
    expect(operation("POST", "/api/reports")?.responses["409"]).toBeDefined();
    expect(operation("POST", "/api/auth/login")?.responses["429"]).toBeDefined();

    // Open calls ask for no token and cannot answer 401.
    const categories = operation("GET", "/api/categories");
    // Open calls say so: no scheme needed (issue 34).
    expect(categories?.security).toEqual([]);
    expect((document as unknown as { servers: unknown }).servers).toEqual([
      { url: "/", description: "This site" },
    ]);
    expect(categories?.responses["401"]).toBeUndefined();
    // A token is optional where it shows more (a draft to its author).
    expect(operation("GET", "/api/posts/{id}")?.security).toEqual([{}, { bearerAuth: [] }]);

    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("describes image uploads as multipart forms with a binary `image`", () => {
    for (const [method, path] of [
      ["POST", "/api/posts"],
      ["POST", "/api/posts/images"],
      ["PUT", "/api/posts/post-image/{id}"],
      ["POST", "/api/users/profile/profile-photo"],
    ] as const) {
      const form = resolved.paths[path]?.[method.toLowerCase()]?.requestBody?.content[
        "multipart/form-data"
      ]?.schema as { properties: Record<string, Json>; required: string[] } | undefined;
      expect(form?.properties.image, `${method} ${path}`).toMatchObject({
        type: "string",
        format: "binary",
      });
      // A draft may be saved without one (DESIGN.md 10): optional on create alone.
      if (path === "/api/posts") expect(form?.required).not.toContain("image");
      else expect(form?.required).toContain("image");
    }
    const create = resolved.paths["/api/posts"]?.post?.requestBody?.content["multipart/form-data"]
      ?.schema as { properties: Record<string, Json>; required: string[] };
    expect(Object.keys(create.properties).sort()).toEqual(
      [
        "canonicalUrl",
        "category",
        "description",
        "image",
        "imageAlt",
        "metaDescription",
        "newsletter",
        "publishAt",
        "series",
        "status",
        "tags",
        "title",
      ].sort(),
    );
    // The contract's limits and choices, not a copy of them.
    expect(create.properties.title).toMatchObject({ type: "string", maxLength: 200 });
    expect(create.properties.status).toMatchObject({ enum: ["published", "draft", "scheduled"] });
  });

  it("takes JSON bodies and query strings from the contract's schemas", () => {
    const register = resolved.paths["/api/auth/register"]?.post?.requestBody?.content[
      "application/json"
    ]?.schema as { required: string[]; properties: Record<string, Json> };
    expect(register.required.sort()).toEqual(["email", "password", "username"]);
    expect(register.properties.username).toMatchObject({ maxLength: 15 });
    const own = operation("GET", "/api/users/me/posts")?.parameters;
    expect(own).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "status", in: "query", required: true }),
        expect.objectContaining({ name: "pageNumber", in: "query", required: false }),
      ]),
    );
    // A page number is a number to typed clients (issue 34), in every call that takes one.
    const pageNumbers = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).flatMap((call) =>
        ((call as { parameters?: { name: string; schema: unknown }[] }).parameters ?? []).filter(
          (parameter) => parameter.name === "pageNumber",
        ),
      ),
    );
    expect(pageNumbers.length).toBeGreaterThan(10);
    for (const parameter of pageNumbers) {
      expect(parameter.schema).toMatchObject({ type: "integer", minimum: 1 });
    }
  });
});

describe("the route table", () => {
  it("finds a route registered without docs, and leaves it out of the document", async () => {
    const app = Fastify();
    const routes = collectApiRoutes(app);
    app.get(
      "/api/things/:id",
      documented({
        summary: "Read a thing",
        access: "anyone",
        response: { status: 200, description: "The thing", schema: z.object({ id: z.string() }) },
      }),
      () => ({ id: "1" }),
    );
    app.post("/api/things", () => ({}));
    app.get("/elsewhere", () => ({}));
    await app.ready();
    expect(undocumentedRoutes(routes)).toEqual(["POST /api/things"]);
    const built = buildOpenApiDocument(routes, { title: "t", description: "d" });
    expect(Object.keys(built.paths)).toEqual(["/api/things/{id}"]);
    await app.close();
  });
});

describe("real answers match the reference", () => {
  it("posts, comments, likes and uploads", async () => {
    const post = await addPost(api, author, { category: "General", title: "Documented" });
    await addComment(api, reader, post._id, "A fair point");
    expectDocumented(
      "PUT",
      "/api/posts/like/{id}",
      await api.put(`/api/posts/like/${post._id}`, undefined, { token: reader.token }),
    );
    expectDocumented("GET", "/api/posts/{id}", await api.get(`/api/posts/${post._id}`));
    expectDocumented("GET", "/api/posts/{id}", await api.get(`/api/posts/${UNKNOWN}`));
    expectDocumented("GET", "/api/posts", await api.get("/api/posts?pageNumber=1"));
    expectDocumented("GET", "/api/posts", await api.get("/api/posts"));
    expectDocumented("GET", "/api/posts", await api.get("/api/posts?pageNumber=0"));
    expectDocumented("GET", "/api/posts/count", await api.get("/api/posts/count"));
    expectDocumented(
      "GET",
      "/api/categories/category/{category}",
      await api.get("/api/categories/category/General?pageNumber=1"),
    );
    const scheduled = await addPost(api, author, {
      category: "General",
      status: "scheduled",
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expectDocumented(
      "GET",
      "/api/posts/{id}",
      await api.get(`/api/posts/${scheduled._id}`, { token: author.token }),
    );
    expectDocumented(
      "GET",
      "/api/users/me/posts",
      await api.get("/api/users/me/posts?status=scheduled", { token: author.token }),
    );
    expectDocumented(
      "PUT",
      "/api/posts/{id}",
      await api.put(
        `/api/posts/${post._id}`,
        { title: "Still documented", category: "General", description: "New words" },
        { token: author.token },
      ),
    );
    expectDocumented(
      "PUT",
      "/api/posts/{id}",
      await api.put(`/api/posts/${post._id}`, { title: "" }, { token: author.token }),
    );
    expectDocumented(
      "PUT",
      "/api/posts/{id}",
      await api.put(
        `/api/posts/${post._id}`,
        { title: "Mine now", category: "General", description: "No" },
        { token: reader.token },
      ),
    );
    const image = { bytes: await pngImage(), filename: "photo.png" };
    expectDocumented(
      "POST",
      "/api/posts/images",
      await api.form("POST", "/api/posts/images", { file: image }, { token: author.token }),
    );
    expectDocumented(
      "POST",
      "/api/posts/images",
      await api.form("POST", "/api/posts/images", { file: image }),
    );
    expectDocumented(
      "PUT",
      "/api/posts/post-image/{id}",
      await api.form(
        "PUT",
        `/api/posts/post-image/${post._id}`,
        { file: image },
        {
          token: author.token,
        },
      ),
    );
    expectDocumented(
      "POST",
      "/api/users/profile/profile-photo",
      await api.form(
        "POST",
        "/api/users/profile/profile-photo",
        { file: image },
        {
          token: reader.token,
        },
      ),
    );

    const comments = await api.get<{ _id: string }[]>("/api/comments", { token: admin.token });
    expectDocumented("GET", "/api/comments", comments);
    expectDocumented("GET", "/api/comments", await api.get("/api/comments"));
    expectDocumented(
      "GET",
      "/api/comments",
      await api.get("/api/comments", { token: reader.token }),
    );
    const [comment] = comments.body;
    expectDocumented(
      "POST",
      "/api/comments",
      await api.post(
        "/api/comments",
        { text: "A reply", postId: post._id, parentId: comment?._id },
        { token: author.token },
      ),
    );
    expectDocumented(
      "PUT",
      "/api/comments/{id}",
      await api.put(
        `/api/comments/${comment?._id ?? ""}`,
        { text: "Edited" },
        {
          token: reader.token,
        },
      ),
    );
    expectDocumented(
      "DELETE",
      "/api/comments/{id}",
      await api.delete(`/api/comments/${comment?._id ?? ""}`, { token: reader.token }),
    );
    expectDocumented(
      "DELETE",
      "/api/posts/{id}",
      await api.delete(`/api/posts/${post._id}`, { token: author.token }),
    );
  });

  it("following, bookmarks and notifications", async () => {
    const post = await addPost(api, author, { category: "General", title: "Followed" });
    const as = (user: TestUser) => ({ token: user.token });
    const follow = (id: string, user: TestUser) =>
      api.put(`/api/users/follow/${id}`, undefined, as(user));
    expectDocumented("PUT", "/api/users/follow/{id}", await follow(author.id, reader));
    expectDocumented("PUT", "/api/users/follow/{id}", await follow(reader.id, reader));
    expectDocumented("PUT", "/api/users/follow/{id}", await follow(UNKNOWN, reader));
    expectDocumented(
      "PUT",
      "/api/users/follow/{id}",
      await api.put(`/api/users/follow/${author.id}`),
    );
    expectDocumented(
      "GET",
      "/api/users/profile/{id}",
      await api.get(`/api/users/profile/${author.id}`, as(reader)),
    );
    expectDocumented(
      "GET",
      "/api/posts/feed",
      await api.get("/api/posts/feed?pageNumber=1", as(reader)),
    );
    const bookmark = (id: string) => api.put(`/api/posts/bookmark/${id}`, undefined, as(reader));
    expectDocumented("PUT", "/api/posts/bookmark/{id}", await bookmark(post._id));
    expectDocumented("PUT", "/api/posts/bookmark/{id}", await bookmark(UNKNOWN));
    expectDocumented(
      "GET",
      "/api/users/me/bookmarks",
      await api.get("/api/users/me/bookmarks?pageNumber=1", as(reader)),
    );
    const notifications = await api.get("/api/notifications?pageNumber=1", as(author));
    expect(notifications.status, notifications.text).toBe(200);
    expectDocumented("GET", "/api/notifications", notifications);
    expectDocumented(
      "POST",
      "/api/notifications/read",
      await api.post("/api/notifications/read", {}, as(author)),
    );
    expectDocumented(
      "POST",
      "/api/notifications/read",
      await api.post("/api/notifications/read", { ids: "all" }, as(author)),
    );
  });

  // A view is of a page: without the built site (the other Node releases' run) there is none.
  it.skipIf(!SITE_BUILT)("writers' stats", async () => {
    const post = await addPost(api, author, { category: "General", title: "Read" });
    const page = await fetch(`${server.url}/posts/details/${post._id}`, {
      headers: {
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        referer: "https://news.example.org/",
      },
    });
    await page.arrayBuffer();
    expect(page.status).toBe(200);
    // Until the view is written, with its referrer (every 100 ms here).
    const as = (user: TestUser) => ({ token: user.token });
    const deadline = Date.now() + 10_000;
    let mine = await api.get<{ posts: unknown[]; referrers: unknown[] }>(
      "/api/stats/me",
      as(author),
    );
    while (mine.body.referrers.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      mine = await api.get("/api/stats/me", as(author));
    }
    expect(mine.body.posts, mine.text).toHaveLength(1);
    expectDocumented("GET", "/api/stats/me", mine);
    expectDocumented("GET", "/api/stats/me", await api.get("/api/stats/me?days=90", as(reader)));
    expectDocumented("GET", "/api/stats/me", await api.get("/api/stats/me?days=1", as(author)));
    expectDocumented("GET", "/api/stats/me", await api.get("/api/stats/me"));
    const ofPost = (id: string, query = "") => `/api/stats/posts/${id}${query}`;
    const stats = await api.get<{ referrers: unknown[] }>(ofPost(post._id, "?days=7"), as(author));
    expect(stats.body.referrers).toHaveLength(1);
    expectDocumented("GET", "/api/stats/posts/{id}", stats);
    for (const [id, user, query] of [
      [post._id, admin, ""],
      [post._id, author, "?days=abc"],
      [post._id, reader, ""],
      [UNKNOWN, author, ""],
    ] as const) {
      expectDocumented("GET", "/api/stats/posts/{id}", await api.get(ofPost(id, query), as(user)));
    }
    expectDocumented("GET", "/api/stats/posts/{id}", await api.get(ofPost(post._id)));
    const site = await api.get<{ views: number }>("/api/admin/stats?days=30", as(admin));
    expect(site.body.views).toBeGreaterThan(0);
    expectDocumented("GET", "/api/admin/stats", site);
    expectDocumented("GET", "/api/admin/stats", await api.get("/api/admin/stats", as(reader)));
    expectDocumented(
      "GET",
      "/api/admin/stats",
      await api.get("/api/admin/stats?days=0", as(admin)),
    );
    expectDocumented("GET", "/api/admin/stats", await api.get("/api/admin/stats"));
  });

  it("search", async () => {
    expectDocumented("GET", "/api/search", await api.get("/api/search?q=documented"));
    expectDocumented("GET", "/api/search", await api.get("/api/search?q="));
    expectDocumented("GET", "/api/search", await api.get(`/api/search?q=${"x".repeat(201)}`));
  });

  it("static pages and their revisions", async () => {
    const as = { token: admin.token };
    const body = { title: "About", slug: "about", description: "We *write*." };
    const created = await api.post<{ _id: string }>("/api/pages", body, as);
    expectDocumented("POST", "/api/pages", created);
    expectDocumented("POST", "/api/pages", await api.post("/api/pages", body, as));
    expectDocumented("POST", "/api/pages", await api.post("/api/pages", { title: "" }, as));
    expectDocumented("POST", "/api/pages", await api.post("/api/pages", body));
    expectDocumented(
      "POST",
      "/api/pages",
      await api.post("/api/pages", body, { token: reader.token }),
    );
    const id = created.body._id;
    expectDocumented(
      "PUT",
      "/api/pages/{page}",
      await api.put(`/api/pages/${id}`, { title: "About us", slug: "about-us" }, as),
    );
    expectDocumented("PUT", "/api/pages/{page}", await api.put(`/api/pages/${UNKNOWN}`, {}, as));
    await api.post("/api/pages", { ...body, slug: "contact" }, as);
    const taken = { slug: "contact" };
    expectDocumented("PUT", "/api/pages/{page}", await api.put(`/api/pages/${id}`, taken, as));
    const stale = { title: "Again", updatedAt: "2000-01-01T00:00:00.000Z" };
    expectDocumented("PUT", "/api/pages/{page}", await api.put(`/api/pages/${id}`, stale, as));
    expectDocumented("GET", "/api/pages", await api.get("/api/pages"));
    expectDocumented("GET", "/api/pages/{page}", await api.get("/api/pages/about"));
    expectDocumented("GET", "/api/pages/{page}", await api.get("/api/pages/nothing-here"));
    const revisions = await api.get<{ _id: string }[]>(`/api/pages/${id}/revisions`, as);
    expectDocumented("GET", "/api/pages/{id}/revisions", revisions);
    const revision = revisions.body[0]?._id ?? "";
    const revisionPath = `/api/pages/${id}/revisions/${revision}`;
    expectDocumented(
      "GET",
      "/api/pages/{id}/revisions/{revisionId}",
      await api.get(revisionPath, as),
    );
    expectDocumented(
      "POST",
      "/api/pages/{id}/revisions/{revisionId}/restore",
      await api.post(`${revisionPath}/restore`, undefined, as),
    );
    expectDocumented("DELETE", "/api/pages/{page}", await api.delete(`/api/pages/${id}`, as));
    expectDocumented("DELETE", "/api/pages/{page}", await api.delete(`/api/pages/${id}`, as));
  });

  it("accounts, categories, moderation and the reference itself", async () => {
    const login = await api.post("/api/auth/login", {
      email: author.email,
      password: author.password,
    });
    expectDocumented("POST", "/api/auth/login", login);
    expectDocumented("POST", "/api/auth/login", await api.post("/api/auth/login", { email: "x" }));
    expectDocumented(
      "POST",
      "/api/auth/register",
      await api.post("/api/auth/register", {
        username: "documented",
        email: "documented@example.com",
        password: "Secret-Pass1!",
      }),
    );
    expectDocumented(
      "GET",
      "/api/users/profile/{id}",
      await api.get(`/api/users/profile/${author.id}`),
    );
    expectDocumented(
      "GET",
      "/api/users/profile/{id}",
      await api.get(`/api/users/profile/${author.id}`, { token: author.token }),
    );
    expectDocumented(
      "GET",
      "/api/users/user/{id}",
      await api.get(`/api/users/user/${author.id}?pageNumber=1`),
    );
    expectDocumented(
      "PUT",
      "/api/users/profile/{id}",
      await api.put(
        `/api/users/profile/${reader.id}`,
        { username: reader.username, email: reader.email, bio: "Reads a lot" },
        { token: reader.token },
      ),
    );
    expectDocumented(
      "GET",
      "/api/users/profile",
      await api.get("/api/users/profile", { token: admin.token }),
    );
    expectDocumented(
      "GET",
      "/api/users/count",
      await api.get("/api/users/count", { token: admin.token }),
    );
    expectDocumented("GET", "/api/categories", await api.get("/api/categories"));
    const category = await api.post<{ _id: string }>(
      "/api/categories",
      { title: "Elsewhere" },
      { token: admin.token },
    );
    expectDocumented("POST", "/api/categories", category);
    expectDocumented(
      "POST",
      "/api/categories",
      await api.post("/api/categories", { title: "elsewhere" }, { token: admin.token }),
    );
    expectDocumented(
      "DELETE",
      "/api/categories/{id}",
      await api.delete(`/api/categories/${category.body._id}`, { token: admin.token }),
    );

    const post = await addPost(api, author, { category: "General" });
    const report = await api.post<{ _id: string }>(
      "/api/reports",
      { postId: post._id, reason: "spam" },
      { token: reader.token },
    );
    expectDocumented("POST", "/api/reports", report);
    expectDocumented(
      "POST",
      "/api/reports",
      await api.post("/api/reports", { postId: post._id, reason: "spam" }, { token: reader.token }),
    );
    expectDocumented("GET", "/api/reports", await api.get("/api/reports", { token: admin.token }));
    expectDocumented(
      "PUT",
      "/api/reports/{id}",
      await api.put(
        `/api/reports/${report.body._id}`,
        { action: "dismiss" },
        {
          token: admin.token,
        },
      ),
    );
    expectDocumented(
      "GET",
      "/api/reports",
      await api.get("/api/reports?status=closed", { token: admin.token }),
    );
    expectDocumented(
      "PUT",
      "/api/users/suspend/{id}",
      await api.put(
        `/api/users/suspend/${reader.id}`,
        { suspended: true, reason: "Testing the reference", until: "2099-01-01T00:00:00Z" },
        {
          token: admin.token,
        },
      ),
    );
    // The refused sign-in of a suspended account carries the terms (issue 33).
    const refused = await api.post("/api/auth/login", {
      email: reader.email,
      password: reader.password,
    });
    expect(refused.status).toBe(403);
    expectDocumented("POST", "/api/auth/login", refused);
    expectDocumented(
      "GET",
      "/api/admin/audit",
      await api.get("/api/admin/audit", { token: admin.token }),
    );
    expectDocumented("GET", "/api/settings", await api.get("/api/settings"));
    const settings = {
      title: "Documented",
      welcome: "Welcome",
      contactPhone: "+1 555 0100",
      contactEmail: "hello@example.com",
    };
    expectDocumented(
      "PUT",
      "/api/admin/settings",
      await api.put("/api/admin/settings", settings, { token: admin.token }),
    );
    expectDocumented(
      "PUT",
      "/api/admin/settings",
      await api.form(
        "PUT",
        "/api/admin/settings",
        { fields: settings, file: { bytes: await pngImage(), filename: "logo.png" } },
        { token: admin.token },
      ),
    );
    expectDocumented("GET", "/api/settings", await api.get("/api/settings"));
    expectDocumented("GET", "/api/openapi.json", await api.get("/api/openapi.json"));
    expectDocumented(
      "DELETE",
      "/api/users/profile/{id}",
      await api.delete(`/api/users/profile/${author.id}`, { token: author.token }),
    );
    expectDocumented(
      "POST",
      "/api/auth/logout",
      await api.post("/api/auth/logout", undefined, { token: admin.token }),
    );
  });
});

describe("GET /api/docs", () => {
  it("is a page of this origin under the site's policy, with its files kept for a year", async () => {
    const page = await api.get("/api/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).not.toContain("unsafe");
    // The way back to the site (the site's own page, not a file of the reference).
    expect(page.text).toContain('<a href="/">← Back to ');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1])
      .filter((source) => source !== "/");
    expect(sources.length).toBeGreaterThanOrEqual(4);
    for (const source of sources) {
      // Paths of this origin only: nothing from a CDN.
      expect(source).toMatch(/^\/[^/]/);
      const file = await api.get(source ?? "");
      expect(file.status, source).toBe(200);
      if (source?.startsWith("/api/docs/")) {
        expect(file.headers.get("cache-control"), source).toBe(
          "public, max-age=31536000, immutable",
        );
      }
    }
    expect((await api.get("/api/docs/assets/0.0.0/swagger-ui-bundle.js")).status).toBe(404);
  });

  it("wears the reader's theme and the site's current title (issue 33)", async () => {
    const plain = await api.get("/api/docs");
    expect(plain.text).toContain('<html lang="en">');
    expect(plain.text).toContain('content="light dark"');
    for (const theme of ["dark", "light"]) {
      const themed = await api.get("/api/docs", { headers: { cookie: `theme=${theme}` } });
      expect(themed.text).toContain(`<html lang="en" data-theme="${theme}">`);
      expect(themed.headers.get("vary")).toMatch(/cookie/i);
    }
    const saved = await api.put(
      "/api/admin/settings",
      {
        title: "Docs <Title>",
        welcome: "Hello",
        contactPhone: "+1 555 0100",
        contactEmail: "docs@example.com",
      },
      // The file's admin signed out in an earlier test: a new session.
      { token: (await signInAdmin(server, api)).token },
    );
    expect(saved.status, saved.text).toBe(200);
    const titled = await api.get("/api/docs");
    expect(titled.text).toContain("<title>API reference - Docs &#60;Title&#62;</title>");
    expect(titled.text).toContain('<a href="/">← Back to Docs &#60;Title&#62;</a>');
  });
});
