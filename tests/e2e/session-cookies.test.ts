import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../core/auth/auth-service.js";
import { SESSION_TTL_MS } from "../../core/auth/sessions.js";
import type { Clock } from "../../core/shared/clock.js";
import { buildUser, PASSWORD, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { postForm } from "../support/form-post.js";

// No browser: the server-rendered pages over plain HTTP, with the session cookie a browser would
// send. The cookie carries the same token as the API's Bearer header, so it must die with it.

let now = Date.parse("2032-06-01T08:00:00Z");
const clock: Clock = () => new Date(now);

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  api = client(server.url);
});
afterAll(() => server.close());

/** Signs in through the login page and returns the cookie it set. */
async function pageLogin(email: string, password: string) {
  const response = await postForm(
    server,
    "/login",
    `email=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}`,
  );
  expect(response.status).toBe(302);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith("session="));
  if (!cookie) throw new Error("the login page set no session cookie");
  return cookie.split(";")[0] ?? "";
}

/** True when the profile page renders for the cookie; a signed-out visitor is sent home. */
async function signedInOnPage(user: TestUser, cookie: string) {
  const response = await fetch(`${server.url}/profile/${user.id}`, {
    redirect: "manual",
    headers: { cookie },
  });
  if (response.status === 302) {
    // Home (SPEC.md 2), saying which profile was asked for.
    expect(new URL(response.headers.get("location") ?? "", server.url).pathname).toBe("/");
    return false;
  }
  expect(response.status).toBe(200);
  return true;
}

describe("the session cookie on pages", () => {
  it("stops working when the session's 30 days are over", async () => {
    const user = await buildUser(server, api);
    const cookie = await pageLogin(user.email, user.password);
    expect(await signedInOnPage(user, cookie)).toBe(true);
    now += SESSION_TTL_MS - 1;
    expect(await signedInOnPage(user, cookie)).toBe(true);
    now += 1;
    expect(await signedInOnPage(user, cookie)).toBe(false);
  });

  it("stops working after Log Out on the site, and the API token of that session too", async () => {
    const user = await buildUser(server, api);
    const cookie = await pageLogin(user.email, user.password);
    const token = cookie.slice("session=".length);
    const out = await postForm(server, "/logout", "", { cookie });
    expect(out.status).toBe(302);
    expect(out.headers.getSetCookie().join()).toMatch(/^session=;.*Max-Age=0/);
    expect(await signedInOnPage(user, cookie)).toBe(false);
    expect((await api.post("/api/auth/logout", undefined, { token })).status).toBe(401);
    // Only that session: the one signed in through the API goes on.
    expect(await signedInOnPage(user, `session=${user.token}`)).toBe(true);
  });

  it("stops working after an API logout of the same token", async () => {
    const user = await buildUser(server, api);
    expect(await signedInOnPage(user, `session=${user.token}`)).toBe(true);
    expect((await api.post("/api/auth/logout", undefined, { token: user.token })).status).toBe(204);
    expect(await signedInOnPage(user, `session=${user.token}`)).toBe(false);
  });

  it("of another session stops working when the password is changed; the changing one stays", async () => {
    const user = await buildUser(server, api);
    const cookie = await pageLogin(user.email, user.password);
    const reply = await api.put(
      `/api/users/profile/${user.id}`,
      { username: user.username, email: user.email, bio: "b", password: "changed1" },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(await signedInOnPage(user, cookie)).toBe(false);
    expect(await signedInOnPage(user, `session=${user.token}`)).toBe(true);
  });

  it("stops working, every one of them, when the password is reset", async () => {
    const user = await buildUser(server, api);
    const cookie = await pageLogin(user.email, user.password);
    expect(
      (await api.post("/api/password/reset-password-link", { email: user.email })).status,
    ).toBe(200);
    const link = await mailedLink(server.dataDir, user.email, "reset");
    const reset = await api.post(`/api/password${link.pathname}`, { password: "N3w!password" });
    expect(reset.status, reset.text).toBe(200);
    expect(await signedInOnPage(user, cookie)).toBe(false);
    expect(await signedInOnPage(user, `session=${user.token}`)).toBe(false);
  });

  it("stops working when the user deletes their account", async () => {
    const user = await buildUser(server, api);
    const cookie = await pageLogin(user.email, user.password);
    const reply = await api.delete(`/api/users/profile/${user.id}`, { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    expect(await signedInOnPage(user, cookie)).toBe(false);
  });

  it("stops working when an admin deletes the user", async () => {
    const admin = await signInAdmin(server, api);
    const user = await buildUser(server, api);
    const cookie = await pageLogin(user.email, user.password);
    const reply = await api.delete(`/api/users/profile/${user.id}`, { token: admin.token });
    expect(reply.status, reply.text).toBe(200);
    expect(await signedInOnPage(user, cookie)).toBe(false);
    expect(await signedInOnPage(user, `session=${user.token}`)).toBe(false);
  });
});

describe("the login page", () => {
  it("counts failed sign-ins per account together with the API: one rule, two entry points", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const email = "locked@example.com";
      await createUser(limited.app.deps, {
        username: "locked",
        email,
        password: PASSWORD,
        isVerified: true,
      });
      const limitedApi = client(limited.url);
      const wrong = `email=${encodeURIComponent(email)}&password=Wrong!pass1`;
      for (let i = 0; i < 3; i += 1) {
        expect((await limitedApi.post("/api/auth/login", { email, password: "x" })).status).toBe(
          400,
        );
      }
      for (let i = 0; i < 2; i += 1) {
        expect((await postForm(limited, "/login", wrong)).status).toBe(400);
      }
      const right = `email=${encodeURIComponent(email)}&password=${encodeURIComponent(PASSWORD)}`;
      const page = await postForm(limited, "/login", right);
      expect(page.status).toBe(429);
      expect(page.headers.getSetCookie()).toEqual([]);
      expect(await page.text()).toContain(
        "Too many failed sign-in attempts for this account, please try again in 15 minutes",
      );
      const fromApi = await limitedApi.post("/api/auth/login", { email, password: PASSWORD });
      expect(fromApi.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe("the check-your-mail page", () => {
  /** Signs up through the register page and returns the proof cookie it set. */
  async function pageSignUp(username: string, email: string) {
    const response = await postForm(
      server,
      "/register",
      new URLSearchParams({ username, email, password: PASSWORD }).toString(),
    );
    expect(response.status).toBe(302);
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith("signup="));
    if (!cookie) throw new Error("the register page set no signup cookie");
    return cookie.split(";")[0] ?? "";
  }
  const resend = (cookie?: string) => postForm(server, "/email-sent", "", cookie ? { cookie } : {});

  it("sends the link again only to the browser that signed up, and only until it is used", async () => {
    const email = "checking-mail@example.com";
    const cookie = await pageSignUp("checkingmail", email);
    // Another browser: no address shown, nothing sent; a forged proof is no proof.
    const plain = await fetch(`${server.url}/email-sent`);
    expect(await plain.text()).not.toContain(email);
    expect((await resend()).status).toBe(400);
    const forged = cookie.replace(/\.[^.]+$/, ".forged");
    expect((await resend(forged)).status).toBe(400);

    // The browser that signed up sees the address and gets a new link, which works.
    const page = await fetch(`${server.url}/email-sent`, { headers: { cookie } });
    expect(await page.text()).toContain(email);
    const first = await mailedLink(server.dataDir, email, "verify");
    const again = await resend(cookie);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(`A new link is on its way to ${email}.`);
    const second = await mailedLink(server.dataDir, email, "verify");
    expect(second.href).not.toBe(first.href);
    expect((await fetch(second)).status).toBe(200);
    // Verified: nothing left to send, nor an address to show.
    expect((await resend(cookie)).status).toBe(400);
    const after = await fetch(`${server.url}/email-sent`, { headers: { cookie } });
    expect(await after.text()).not.toContain(email);
  });
});
