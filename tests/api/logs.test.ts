import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.url);
});
afterAll(() => server.close());

describe("request logs", () => {
  it("never hold a password, a token, a hash or a mailed secret", async () => {
    const email = "logged@example.com";
    const password = "L0gged!secret";
    await api.post("/api/auth/register", { username: "logged", email, password });
    const verify = await mailedLink(server.dataDir, email, "verify");
    await api.get(verify.pathname);
    const login = await api.post<{ token: string }>("/api/auth/login", { email, password });
    const token = login.body.token;
    await api.get("/api/users/count", { token });
    await api.post("/api/password/reset-password-link", { email });
    const reset = await mailedLink(server.dataDir, email, "reset");
    await api.get(`/api/password${reset.pathname}`);
    await api.post(`/api/password${reset.pathname}`, { password: "N3w!secret1" });

    const requestLines = server.logs.filter((line) => line.includes('"req"'));
    expect(requestLines.length).toBe(7);
    const all = server.logs.join("\n");
    const verifySecret = verify.pathname.split("/").at(-1) ?? "";
    const resetSecret = reset.pathname.split("/").at(-1) ?? "";
    for (const secret of [password, "N3w!secret1", token, "$argon2"]) {
      expect(all).not.toContain(secret);
    }
    // The outbox line names the link on purpose (no SMTP: it is how a fresh install signs up);
    // request lines never do.
    for (const secret of [verifySecret, resetSecret]) {
      expect(requestLines.join("\n")).not.toContain(secret);
    }
    expect(requestLines.join("\n")).toContain("/verify/[redacted]");
    expect(all.toLowerCase()).not.toContain("authorization");
  });
});
