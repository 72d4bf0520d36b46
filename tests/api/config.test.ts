import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { client } from "../support/http.js";
import { freePort } from "../support/test-server.js";

function problemsOf(env: Record<string, string>) {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const s3Keys = { S3_ACCESS_KEY_ID: "id", S3_SECRET_ACCESS_KEY: "secret" };

describe("loadConfig", () => {
  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ PORT: "-1" }, "PORT"],
    [{ DATABASE_URL: "mysql://localhost/blog" }, "DATABASE_URL"],
    [{ PUBLIC_URL: "blog.example.com" }, "PUBLIC_URL"],
    [{ PUBLIC_URL: "javascript:alert(1)" }, "PUBLIC_URL"],
    [{ RATE_LIMITS: "maybe" }, "RATE_LIMITS"],
    [{ PAGE_CACHE: "sometimes" }, "PAGE_CACHE"],
    [{ REDIS_URL: "localhost:6379" }, "REDIS_URL"],
    [{ SMTP_URL: "mail.example.com" }, "SMTP_URL"],
    [{ ADMIN_EMAIL: "root" }, "ADMIN_EMAIL"],
    [{ ADMIN_EMAIL: "a@b.co", ADMIN_PASSWORD: "password" }, "ADMIN_PASSWORD"],
    [{ ADMIN_PASSWORD: "Str0ng!pass" }, "ADMIN_EMAIL"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ S3_BUCKET: "images", S3_ACCESS_KEY_ID: "id" }, "S3_SECRET_ACCESS_KEY"],
    [{ S3_PUBLIC_URL: "https://cdn.example.com", ...s3Keys, S3_BUCKET: undefined }, "S3_BUCKET"],
    [{ S3_BUCKET: "My_Images", ...s3Keys }, "S3_BUCKET"],
    [{ S3_ENDPOINT: "minio:9000", S3_BUCKET: "images", ...s3Keys }, "S3_ENDPOINT"],
    [{ S3_PUBLIC_URL: "//cdn.example.com", S3_BUCKET: "images", ...s3Keys }, "S3_PUBLIC_URL"],
    [{ REDIS_PREFIX: "my blog" }, "REDIS_PREFIX"],
    [{ TRUST_PROXY: "yes" }, "TRUST_PROXY"],
    // Would take the client's own word for its address (issue 14, point 5).
    [{ TRUST_PROXY: "true" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "10.0.0.1, 0.0.0.0/0" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "::/0" }, "TRUST_PROXY"],
    [{ MAIL_LINK_URL: "app.example.com" }, "MAIL_LINK_URL"],
    [{ MAIL_LINK_URL: "javascript:alert(1)" }, "MAIL_LINK_URL"],
    [{ CORS_ORIGINS: "*" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://app.example.com, *" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "app.example.com" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://app.example.com/client" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://app.example.com/." }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://app.example.com?x=1" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://user@app.example.com" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "ftp://app.example.com" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "null" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://a.example.com,,https://b.example.com" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://a.example.com https://b.example.com" }, "CORS_ORIGINS"],
  ])("refuses %j naming %s", (env, variable) => {
    const problems = problemsOf(
      Object.fromEntries(
        Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${variable}: `));
  });

  it("has working defaults, and treats empty values as unset", () => {
    const config = loadConfig({ PORT: "", HOST: "", RATE_LIMITS: "", PAGE_CACHE: "" });
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      publicUrl: "http://localhost:3000",
      databaseUrl: undefined,
      rateLimits: true,
      pageCache: true,
    });
    expect(config.dataDir).toBe(path.resolve("data"));
    expect(loadConfig({ PUBLIC_URL: "https://blog.example.com/" }).publicUrl).toBe(
      "https://blog.example.com",
    );
    expect(config).toMatchObject({ redisPrefix: "blog:", trustProxy: false, s3: undefined });
    expect(config).toMatchObject({ mailLinkUrl: "http://localhost:3000", corsOrigins: [] });
    expect(loadConfig({ PUBLIC_URL: "https://blog.example.com/" }).mailLinkUrl).toBe(
      "https://blog.example.com",
    );
  });

  it("reads the origins of API clients as browsers send them, and the base of mailed links", () => {
    const config = loadConfig({
      CORS_ORIGINS: " https://App.example.com:443/ , http://localhost:5173,https://app.example.com",
      MAIL_LINK_URL: "https://app.example.com/blog/",
    });
    expect(config.corsOrigins).toEqual(["https://app.example.com", "http://localhost:5173"]);
    expect(config.mailLinkUrl).toBe("https://app.example.com/blog");
    expect(problemsOf({ CORS_ORIGINS: "*" })).toEqual([
      "CORS_ORIGINS: must list each origin; * is not accepted",
    ]);
  });

  it("reads S3 storage, the Redis prefix and the proxies to trust", () => {
    const config = loadConfig({
      S3_ENDPOINT: "http://127.0.0.1:9000/",
      S3_BUCKET: "images",
      ...s3Keys,
      S3_PUBLIC_URL: "https://cdn.example.com/blog/",
      REDIS_PREFIX: "site-a:",
      TRUST_PROXY: "10.0.0.1, 10.0.0.0/8",
    });
    expect(config).toMatchObject({
      s3: {
        endpoint: "http://127.0.0.1:9000",
        region: "us-east-1",
        bucket: "images",
        accessKeyId: "id",
        secretAccessKey: "secret",
        publicUrl: "https://cdn.example.com/blog",
      },
      redisPrefix: "site-a:",
      trustProxy: ["10.0.0.1", "10.0.0.0/8"],
    });
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    // Without an endpoint it is AWS itself, in the region given.
    expect(loadConfig({ S3_BUCKET: "images", S3_REGION: "eu-west-3", ...s3Keys }).s3).toMatchObject(
      { endpoint: undefined, region: "eu-west-3" },
    );
  });
});

const children: ReturnType<typeof spawn>[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs the real entry point, as `npm start` does but from the sources. */
function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => {
      // The banner is written once the server listens, after Fastify's own "Server listening".
      if (stdout.includes("Stop it with Ctrl+C.")) resolve();
    });
    void exited.then((code) => {
      reject(new Error(`exited ${String(code)}: ${stderr}`));
    });
  });
  listening.catch(() => undefined); // awaited only by the tests that expect it to start
  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

describe("the server process", () => {
  it("stops on a wrong value with a message naming the variable", async () => {
    const server = run({ PORT: "seventy", DATABASE_URL: "mysql://x" });
    expect(await server.exited).toBe(1);
    const { stderr } = server.output();
    expect(stderr).toContain("Invalid configuration");
    expect(stderr).toContain("PORT: must be a whole number");
    expect(stderr).toContain("DATABASE_URL: must be a URL like postgres://");
  });

  it("creates and prints a first admin once, and keeps sessions across a restart", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-process-"));
    dirs.push(dataDir);
    const port = String(await freePort());
    const env = { DATA_DIR: dataDir, PORT: port, HOST: "127.0.0.1" };
    const api = client(`http://127.0.0.1:${port}`);

    const first = run(env);
    await first.listening;
    const printed = /e-mail: +(\S+)\n +password: +(\S+)/.exec(first.output().stdout);
    expect(printed).not.toBeNull();
    const [, email = "", password = ""] = printed ?? [];
    const login = await api.post<{ token: string; isAdmin: boolean }>("/api/auth/login", {
      email,
      password,
    });
    expect(login.status).toBe(200);
    expect(login.body.isAdmin).toBe(true);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = run(env);
    await second.listening;
    expect(second.output().stdout).not.toContain("Created the first admin");
    const count = await api.get("/api/users/count", { token: login.body.token });
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ userCount: 1 });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
