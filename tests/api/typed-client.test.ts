import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../bench/server.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/**
 * The API reference as other tools read it (issue 34): Redocly's recommended rules, and a client
 * generated from it with openapi-typescript and openapi-fetch that compiles and runs here.
 */
let server: TestServer;
let document: string;
let writer: TestUser;
let postId: string;
const workDir = path.join(ROOT, "node_modules", ".cache", `typed-client-${String(process.pid)}`);

beforeAll(async () => {
  server = await startTestServer();
  const api = client(server.url);
  const admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Travel");
  writer = await buildUser(server, api, { username: "typed" });
  postId = (await addPost(api, writer, { title: "Typed journeys", category: "Travel" }))._id;
  document = (await api.get("/api/openapi.json")).text;
  await mkdir(workDir, { recursive: true });
});

afterAll(async () => {
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

/**
 * What the recommended rules warn about and why it stays: each by rule and place. Anything else,
 * and any error, fails.
 */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // The project publishes no licence (package.json is private).
  "info-license #/info": "no licence to name",
  // SPEC.md's /api/posts/like/{id} and its siblings beside DESIGN.md's /api/posts/{id}/revisions:
  // the literal segment tells them apart (a path template has no other way to say so).
  "no-ambiguous-paths #/paths/~1api~1posts~1like~1{id}": "SPEC path",
  "no-ambiguous-paths #/paths/~1api~1posts~1bookmark~1{id}": "SPEC path",
  "no-ambiguous-paths #/paths/~1api~1posts~1post-image~1{id}": "SPEC path",
  // DESIGN.md 11's /api/posts/{id}/newsletter beside SPEC.md's /api/posts/post-image/{id}.
  "no-ambiguous-paths #/paths/~1api~1posts~1{id}~1newsletter": "DESIGN path",
  // Reads that take nothing a client could get wrong and are not rate limited: no 4xx to name.
  "operation-4xx-response #/paths/~1api~1settings/get/responses": "cannot fail",
  "operation-4xx-response #/paths/~1api~1posts~1count/get/responses": "cannot fail",
  "operation-4xx-response #/paths/~1api~1openapi.json/get/responses": "cannot fail",
  "operation-4xx-response #/paths/~1api~1categories/get/responses": "cannot fail",
  "operation-4xx-response #/paths/~1api~1pages/get/responses": "cannot fail",
};

describe("the OpenAPI document through Redocly's recommended rules", () => {
  it("has no error, and only the warnings named here", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: document,
      absoluteRef: `${server.url}/api/openapi.json`,
      config,
    });
    const found = problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer ?? ""}: ${problem.message}`,
    );
    expect(found.filter((line) => line.startsWith("error"))).toEqual([]);
    const unexpected = found.filter(
      (line) => !Object.keys(ACCEPTED_WARNINGS).some((key) => line.startsWith(`warn ${key}:`)),
    );
    expect(unexpected).toEqual([]);
  });
});

/** The client a script would write, typed by the generated `paths`: compiled, then run. */
const CLIENT = `import createClient from "openapi-fetch";
import type { paths } from "./api.js";

export async function journey(baseUrl: string, token: string, postId: string, photo: Blob) {
  const api = createClient<paths>({ baseUrl });
  const auth = { Authorization: \`Bearer \${token}\` };
  const categories = await api.GET("/api/categories");
  const page = await api.GET("/api/posts", { params: { query: { pageNumber: 1 } } });
  const post = await api.GET("/api/posts/{id}", { params: { path: { id: postId } } });
  const missing = await api.GET("/api/posts/{id}", {
    params: { path: { id: "00000000-0000-4000-8000-000000000000" } },
  });
  const comment = await api.POST("/api/comments", {
    headers: auth,
    body: { postId, text: "Written by a typed client." },
  });
  const refused = await api.POST("/api/comments", { body: { postId, text: "No token." } });
  const uploaded = await api.POST("/api/users/profile/profile-photo", {
    headers: auth,
    body: { image: photo },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append("image", body.image, "photo.png");
      return form;
    },
  });
  return {
    categories: categories.data?.map((category) => category.title) ?? [],
    titles: page.data?.map((found) => found.title) ?? [],
    postTitle: post.data?.title,
    missing: [missing.response.status, missing.error?.message],
    comment: [comment.response.status, comment.data?.text],
    refused: [refused.response.status, refused.error?.message],
    photo: [uploaded.response.status, typeof uploaded.data?.profilePhoto?.url],
  };
}
`;

describe("a client generated from the document", () => {
  it("compiles with openapi-typescript's types and runs against the server", async () => {
    const ast = await openapiTS(document, {
      // Files in multipart bodies: what a browser or Node sends them as.
      transform: (schema) =>
        "format" in schema && schema.format === "binary"
          ? ts.factory.createTypeReferenceNode("Blob")
          : undefined,
    });
    await writeFile(path.join(workDir, "api.ts"), astToString(ast));
    const clientFile = path.join(workDir, "client.ts");
    await writeFile(clientFile, CLIENT);

    const program = ts.createProgram([clientFile], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: [],
      skipLibCheck: true,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    expect(diagnostics).toEqual([]);

    const { journey } = (await import(pathToFileURL(clientFile).href)) as {
      journey: (
        baseUrl: string,
        token: string,
        postId: string,
        photo: Blob,
      ) => Promise<Record<string, unknown>>;
    };
    const photo = new Blob([await pngImage(200, 200)], { type: "image/png" });
    expect(await journey(server.url, writer.token, postId, photo)).toEqual({
      categories: ["Travel"],
      titles: ["Typed journeys"],
      postTitle: "Typed journeys",
      missing: [404, "Post not found"],
      comment: [201, "Written by a typed client."],
      refused: [401, "No token provided, please log in"],
      photo: [200, "string"],
    });
  }, 60_000);
});
