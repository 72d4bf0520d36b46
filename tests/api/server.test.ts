import pg from "pg";
import { describe, expect, it } from "vitest";
import { client } from "../support/http.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

const { server, api } = await openTestSite();

describe("the HTTP host", () => {
  it("answers unknown /api paths with a JSON 404", async () => {
    const reply = await api.get("/api/no-such-thing");
    expect(reply.status).toBe(404);
    expect(reply.headers.get("content-type")).toContain("application/json");
    expect(reply.body).toEqual({ message: "Not found: GET /api/no-such-thing" });
  });

  it("answers malformed JSON with 400 and no internals", async () => {
    const reply = await api.raw("POST", "/api/auth/login", "{not json", {
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
    expect(reply.text).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it("answers an unsupported body type with 415", async () => {
    const reply = await api.raw("POST", "/api/auth/login", "<email/>", {
      headers: { "content-type": "application/xml" },
    });
    expect(reply.status).toBe(415);
    expect(reply.body).toHaveProperty("message");
  });

  it("answers a body that is not a JSON object with 400", async () => {
    for (const body of ["email=a", "[1,2]", '"text"']) {
      const reply = await api.raw("POST", "/api/auth/login", body, {
        headers: { "content-type": body.startsWith("email") ? "text/plain" : "application/json" },
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ message: "The request body must be a JSON object" });
    }
  });

  it("answers a body over one megabyte with 413", async () => {
    const reply = await api.post("/api/auth/login", { email: "a".repeat(1_100_000) });
    expect(reply.status).toBe(413);
  });

  it("reports the database in /healthz", async () => {
    const reply = await api.get("/healthz");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "ok" });
  });

  it("sets security headers on every response", async () => {
    for (const path of ["/healthz", "/api/no-such-thing", "/images/default-avatar.svg"]) {
      const { headers } = await api.get(path);
      expect(headers.get("x-content-type-options")).toBe("nosniff");
      expect(headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(headers.get("content-security-policy")).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(headers.get("x-frame-options")).toBe("SAMEORIGIN");
      // Images are meant to be shown by other sites too.
      expect(headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      expect(headers.get("cross-origin-opener-policy")).toBe("same-origin");
      // Plain HTTP: HSTS would lock a local install out of itself.
      expect(headers.get("strict-transport-security")).toBeNull();
    }
  });
});

describe.runIf(process.env.DATABASE_URL)("on PostgreSQL", () => {
  it("survives the database ending its idle connections", async () => {
    expect((await api.get("/healthz")).status).toBe(200);
    const database = new URL(server.config.databaseUrl ?? "").pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const ended = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [database],
    );
    await admin.end();
    expect(ended.rowCount).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await api.get("/healthz")).status).toBe(200);
    expect(server.logs.some((line) => line.includes("database connection dropped"))).toBe(true);
  });
});

describe("/healthz when the database is gone", () => {
  it("answers 503", async () => {
    const broken = await startTestServer();
    try {
      await broken.app.database.close();
      const reply = await client(broken.url).get("/healthz");
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({ status: "unavailable" });
    } finally {
      await broken.app.server.close().catch(() => undefined);
    }
  });
});
