import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT } from "../../bench/server.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory } from "../support/post-fixtures.js";
import { freePort, startTestServer, type TestServer } from "../support/test-server.js";

// docs/integrations.md's examples, run as they are written (issue 36): the curl script and the
// typed client publish with a personal API token, and the receiver verifies a real delivery with
// the standardwebhooks package.

const run = promisify(execFile);
let server: TestServer;
let api: Client;
let admin: TestUser;
let writer: TestUser;
let token: string;
const workDir = path.join(
  ROOT,
  "node_modules",
  ".cache",
  `integration-docs-${String(process.pid)}`,
);

/** The fenced block after `<!-- tested: name -->` in docs/integrations.md. */
async function example(name: string) {
  const text = await readFile(path.join(ROOT, "docs", "integrations.md"), "utf8");
  const start = text.indexOf(`<!-- tested: ${name} -->`);
  expect(start, `docs/integrations.md has no example "${name}"`).toBeGreaterThan(-1);
  const block = /```\w*\n([\s\S]*?)```/.exec(text.slice(start));
  return block?.[1] ?? "";
}

/** Type-checks TypeScript files strictly, as a script's own `tsc` would. */
function typeErrors(files: string[]) {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    skipLibCheck: true,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

/** Runs a module as a script would run, with these variables set meanwhile. */
async function runModule(file: string, env: Record<string, string>) {
  const before = { ...process.env };
  Object.assign(process.env, env);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } finally {
    for (const name of Object.keys(env)) {
      if (before[name] === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = before[name];
    }
  }
}

beforeAll(async () => {
  server = await startTestServer(
    { WEBHOOK_ALLOW_PRIVATE: "on" },
    { outboxCheckMs: 200, webhookTimeoutMs: 2000 },
  );
  api = client(server.url);
  admin = await signInAdmin(server, api);
  await addCategory(api, admin, "News");
  writer = await buildUser(server, api);
  const made = await api.post<{ token: string }>(
    "/api/tokens",
    { name: "docs", scope: "write" },
    { token: writer.token },
  );
  expect(made.status, made.text).toBe(201);
  token = made.body.token;
  await mkdir(workDir, { recursive: true });
  // The examples are ES modules (top-level await), as a script's package.json would say.
  await writeFile(path.join(workDir, "package.json"), '{ "type": "module" }\n');
});

afterAll(async () => {
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

const postsOf = (userId: string) =>
  server.app.deps.db
    .selectFrom("posts")
    .select(["title", "status", "tags", "description"])
    .where("user_id", "=", userId)
    .orderBy("created_at")
    .execute();

describe("publishing with a token", () => {
  it("works with the curl example", async () => {
    const dir = path.join(workDir, "curl");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "publish.sh"), await example("publish.sh"));
    await writeFile(path.join(dir, "notes.md"), "# 1.4\n\n- Faster pages\n");
    await writeFile(path.join(dir, "cover.png"), await pngImage(400, 300));
    const { stdout } = await run("sh", ["publish.sh"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", BLOG_URL: server.url, BLOG_TOKEN: token },
    });
    expect(stdout).toContain('"title":"Release notes"');
    expect(await postsOf(writer.id)).toEqual([
      {
        title: "Release notes",
        status: "published",
        tags: "release changelog",
        description: "# 1.4\n\n- Faster pages",
      },
      { title: "Next release", status: "draft", tags: "", description: "Coming soon." },
    ]);
    // With a read token the same script stops at its first call, saying why.
    const read = await api.post<{ token: string }>(
      "/api/tokens",
      { name: "read", scope: "read" },
      { token: writer.token },
    );
    const refused = await run("sh", ["publish.sh"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", BLOG_URL: server.url, BLOG_TOKEN: read.body.token },
    }).catch((error: unknown) => error as { code: number; stdout: string });
    expect(refused).toMatchObject({ code: 22 });
    expect((refused as { stdout: string }).stdout).toContain("This API token can only read");
  }, 30_000);

  it("works with the typed client example, which compiles strict", async () => {
    await server.app.deps.db.deleteFrom("posts").where("user_id", "=", writer.id).execute();
    const document = (await api.get("/api/openapi.json")).text;
    const ast = await openapiTS(document, {
      transform: (schema) =>
        "format" in schema && schema.format === "binary"
          ? ts.factory.createTypeReferenceNode("Blob")
          : undefined,
    });
    await writeFile(path.join(workDir, "blog-api.ts"), astToString(ast));
    const script = path.join(workDir, "publish.ts");
    await writeFile(script, await example("publish.ts"));
    expect(typeErrors([script])).toEqual([]);
    const logged = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      await runModule(script, { BLOG_URL: server.url, BLOG_TOKEN: token });
      expect(logged.mock.calls.map((call) => call[0] as unknown)).toEqual([
        expect.stringMatching(/^Saved draft [0-9a-f-]{36}$/),
        ["Written by a script"],
      ]);
    } finally {
      logged.mockRestore();
    }
    expect(await postsOf(writer.id)).toMatchObject([
      { title: "Written by a script", status: "draft" },
    ]);
  }, 60_000);
});

describe("verifying a webhook", () => {
  it("works with the receiver example and standardwebhooks, and refuses a forged delivery", async () => {
    const script = path.join(workDir, "receiver.ts");
    await writeFile(script, await example("receiver.ts"));
    expect(typeErrors([script])).toEqual([]);
    const port = await freePort();
    const made = await api.post<{ _id: string; secret: string }>(
      "/api/webhooks",
      { url: `http://127.0.0.1:${String(port)}/hooks`, events: ["post.published"] },
      { token: admin.token },
    );
    expect(made.status, made.text).toBe(201);
    const logged = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const { receiver } = (await runModule(script, {
      BLOG_WEBHOOK_SECRET: made.body.secret,
      PORT: String(port),
    })) as { receiver: Server };
    try {
      const test = await api.post(`/api/webhooks/${made.body._id}/test`, undefined, {
        token: admin.token,
      });
      expect(test.status, test.text).toBe(201);
      await vi.waitFor(
        async () => {
          const deliveries = await api.get<{ status: string; responseStatus: number }[]>(
            `/api/webhooks/${made.body._id}/deliveries`,
            { token: admin.token },
          );
          expect(deliveries.body[0]).toMatchObject({ status: "delivered", responseStatus: 204 });
        },
        { timeout: 10_000, interval: 100 },
      );
      expect(logged.mock.calls).toEqual([
        ["webhook.test", { message: `A test event from ${server.url}` }],
      ]);
      // Someone else's POST, signed with another key: refused, and nothing acted on.
      const forged = await fetch(`http://127.0.0.1:${String(port)}/hooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": "msg_forged",
          "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
          "webhook-signature": "v1,bm90IGEgc2lnbmF0dXJl",
        },
        body: JSON.stringify({ type: "post.deleted", timestamp: "", data: { _id: "x" } }),
      });
      expect(forged.status).toBe(400);
      expect(logged.mock.calls).toHaveLength(1);
    } finally {
      logged.mockRestore();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 60_000);
});
