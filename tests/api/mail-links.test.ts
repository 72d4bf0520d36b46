import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// A front end hosted on its own origin (CORS_ORIGINS) serves the pages the mails link to; the
// mails must send people there, with the same paths, and the tokens must work against this API.
const FRONT_END = "https://app.example.com/blog";

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer({ MAIL_LINK_URL: `${FRONT_END}/` });
  api = client(server.url);
});
afterAll(() => server.close());

describe("links in mail with MAIL_LINK_URL", () => {
  it("send the verification to the front end, whose call then verifies", async () => {
    const email = "far@example.com";
    const registered = await api.post("/api/auth/register", {
      username: "faraway",
      email,
      password: "Str0ng!pass",
    });
    expect(registered.status, registered.text).toBe(201);

    const link = await mailedLink(server.dataDir, email, "verify");
    expect(`${link.origin}${link.pathname}`).toMatch(
      new RegExp(`^${FRONT_END}/api/auth/[0-9a-f-]{36}/verify/[A-Za-z0-9_-]{43}$`),
    );
    const apiPath = link.pathname.slice(new URL(FRONT_END).pathname.length);
    const verified = await api.get(apiPath);
    expect(verified.status, verified.text).toBe(200);
    const login = await api.post("/api/auth/login", { email, password: "Str0ng!pass" });
    expect(login.status, login.text).toBe(200);
  });

  it("send the password reset to the front end's /reset-password page", async () => {
    const email = "far@example.com";
    const sent = await api.post("/api/password/reset-password-link", { email });
    expect(sent.status).toBe(200);

    const link = await mailedLink(server.dataDir, email, "reset");
    expect(`${link.origin}${link.pathname}`).toMatch(
      new RegExp(`^${FRONT_END}/reset-password/[0-9a-f-]{36}/[A-Za-z0-9_-]{43}$`),
    );
    // The page there calls this API with the same id and token.
    const apiPath = `/api/password${link.pathname.slice(new URL(FRONT_END).pathname.length)}`;
    expect((await api.get(apiPath)).status).toBe(200);
    const reset = await api.post(apiPath, { password: "N3w!password" });
    expect(reset.status, reset.text).toBe(200);
  });
});
