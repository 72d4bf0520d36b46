import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import {
  expectAccessible,
  expectNoProblems,
  launchBrowser,
  openSite,
  readLocalStorage,
  shows,
} from "./browser.js";
import { postForm } from "../support/form-post.js";

let server: TestServer;
let browser: Browser;

const WEAK =
  "Must contain 8 characters, one uppercase, one lowercase, one number and one special character";

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

async function fill(page: Page, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) {
    await page.getByLabel(label, { exact: true }).fill(value);
  }
}

async function logIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await fill(page, { Email: email, Password: password });
  await page.getByRole("button", { name: "Login" }).click();
}

describe("signing up, verifying, logging in and out", () => {
  it("loads the forms' checks when a form is touched and then checks without a request", async () => {
    const site = await openSite(browser, server.config.publicUrl);
    const { page } = site;
    const scripts: string[] = [];
    page.on("response", (response) => {
      if (response.url().endsWith(".js")) scripts.push(response.url());
    });
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    // zod (its error class names its code) stays out of a page that is only read (issue 50's
    // page weight and Lighthouse): home, then the register form before anyone touches it.
    const zodLoaded = async () => {
      for (const url of scripts) {
        if ((await (await fetch(url)).text()).includes("ZodError")) return true;
      }
      return false;
    };
    await page.goto("/");
    await page.waitForLoadState("networkidle");
    await page.goto("/register");
    await page.waitForLoadState("networkidle");
    expect(scripts.length).toBeGreaterThan(0);
    expect(await zodLoaded()).toBe(false);

    await page.getByLabel("Username", { exact: true }).focus();
    await expect.poll(zodLoaded).toBe(true);
    await fill(page, { Username: "jo hn", Email: "john@nowhere", Password: "weak" });
    await page.getByRole("button", { name: "Register" }).click();
    await shows(page.getByText("Username should contain only alphanumeric characters"));
    await shows(page.getByText("Invalid email address"));
    expect(posts).toEqual([]);
    expectNoProblems(site);
    await site.context.close();
  });

  it("walks the whole journey through the mailed link", async () => {
    // Fresh names on every attempt, so a retry after a stall does not meet its own first try.
    const name = `johnny${Math.random().toString(36).slice(2, 7)}`;
    const email = `${name}@example.com`;
    const site = await openSite(browser, server.config.publicUrl);
    const { page } = site;

    await page.goto("/register");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Register" }).click();
    await shows(page.getByText("Username is required"));
    await shows(page.getByText("Email is required"));
    await shows(page.getByText("Password is required"));

    await fill(page, { Username: "jo hn", Email: "john@nowhere", Password: "weak" });
    await page.getByRole("button", { name: "Register" }).click();
    await shows(page.getByText("Username should contain only alphanumeric characters"));
    await shows(page.getByText("Invalid email address"));
    await shows(page.getByText(WEAK));

    await fill(page, { Username: name, Email: email, Password: "J0hnny!pass" });
    await page.getByRole("button", { name: "Register" }).click();
    await page.waitForURL("**/email-sent");
    await shows(page.getByRole("heading", { name: "Please verify you email" }));
    // The address it wrote to, and a way to have the link sent again (issue 50).
    await shows(page.getByText(email));
    await expectAccessible(page);
    await page.getByRole("button", { name: "Send the link again" }).click();
    await shows(page.getByText(`A new link is on its way to ${email}.`));

    // Signing up twice shows the server's answer as a toast.
    await page.goto("/register");
    await fill(page, { Username: name, Email: email.toUpperCase(), Password: "J0hnny!pass" });
    await page.getByRole("button", { name: "Register" }).click();
    await shows(page.getByRole("status").getByText("User already exists"));

    await logIn(page, email, "J0hnny!pass");
    await shows(
      page.getByRole("status").getByText("We sent you an email, please verify your email address"),
    );

    const link = await mailedLink(server.dataDir, email, "verify");
    await page.goto(link.pathname);
    // Opened in the browser that signed up: signed in at once (issue 33), no second login, on
    // SPEC's verified page; its link to /login goes home. (Another browser: member-polish.test.ts.)
    await page.waitForURL("**/email-verified");
    await shows(
      page.getByRole("heading", { name: "Your email address has been successfully verified" }),
    );
    await shows(page.getByText("You are logged in on this browser."));
    await shows(page.locator(".user-menu summary", { hasText: name }));
    await expectAccessible(page);
    await page.getByRole("link", { name: "Continue" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await page.locator(".user-menu summary").click();
    await page.getByRole("button", { name: "Logout" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await page.goto("/login");

    await logIn(page, email, "Wrong!pass1");
    await shows(page.getByRole("status").getByText("Invalid email or password"));

    await logIn(page, email, "J0hnny!pass");
    await page.waitForURL((url) => url.pathname === "/");
    await shows(page.locator(".user-menu summary", { hasText: name }));
    expect(await page.getByRole("link", { name: "Login" }).count()).toBe(0);
    const stored = await readLocalStorage(page, "userInfo");
    expect(JSON.parse(stored ?? "{}")).toMatchObject({ username: name });
    expect(stored).not.toMatch(/token/i);
    const cookies = await site.context.cookies();
    expect(cookies.find((c) => c.name === "session")).toMatchObject({
      httpOnly: true,
      sameSite: "Lax",
    });

    // Signed in, the visitor-only pages send you home.
    for (const path of ["/login", "/register"]) {
      await page.goto(path);
      expect(new URL(page.url()).pathname).toBe("/");
    }

    await page.locator(".user-menu summary").click();
    await page.getByRole("link", { name: "Profile" }).click();
    await page.waitForURL("**/profile/**");
    await shows(page.getByRole("heading", { name, level: 1 }));
    await shows(page.getByRole("heading", { name: "User Posts" }));
    await shows(page.getByText("No Posts Were Found"));
    await expectAccessible(page);
    const profilePath = new URL(page.url()).pathname;

    await page.locator(".user-menu summary").click();
    await page.getByRole("button", { name: "Logout" }).click();
    await shows(page.getByRole("link", { name: "Login" }));
    expect(await readLocalStorage(page, "userInfo")).toBeNull();

    // Signed out, a profile sends you home.
    await page.goto(profilePath);
    expect(new URL(page.url()).pathname).toBe("/");
    expectNoProblems(site);
    await site.context.close();
  });

  it("shows 'Invalid Link' for a bad verification link, with a way to log in", async () => {
    const site = await openSite(browser, server.config.publicUrl);
    await site.page.goto(`/api/auth/00000000-0000-4000-8000-000000000000/verify/${"x".repeat(43)}`);
    await shows(site.page.getByRole("heading", { name: "Invalid Link" }));
    await shows(site.page.getByRole("link", { name: "Go To Login" }));
    await site.context.close();
  });

  it("answers the same verification path with JSON to an API client", async () => {
    const reply = await client(server.url).get(
      `/api/auth/00000000-0000-4000-8000-000000000000/verify/abc`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: "Invalid link" });
  });
});

describe("forgotten passwords", () => {
  it("mails a link, refuses a weak password and sets a strong one", async () => {
    const api = client(server.url);
    const user = await buildUser(server, api);
    const site = await openSite(browser, server.config.publicUrl);
    const { page } = site;

    await page.goto("/forgot-password");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Reset Password" }).click();
    await shows(page.getByText("Email is required"));
    await fill(page, { Email: user.email });
    await page.getByRole("button", { name: "Reset Password" }).click();
    await shows(
      page.getByText("Password reset link sent to your email, please check your inbox").first(),
    );

    const link = await mailedLink(server.dataDir, user.email, "reset");
    await page.goto(link.pathname);
    await expectAccessible(page);
    await fill(page, { "New Password": "weakpass" });
    await page.getByRole("button", { name: "Update Password" }).click();
    await shows(page.getByText(WEAK));
    await fill(page, { "New Password": "Brand!new1" });
    await page.getByRole("button", { name: "Update Password" }).click();
    await page.waitForURL("**/password-reset-successfully");
    await shows(page.getByRole("heading", { name: "Password reset successfully" }));

    await logIn(page, user.email, "Brand!new1");
    await page.waitForURL((url) => url.pathname === "/");
    await shows(page.locator(".user-menu summary", { hasText: user.username }));
    expectNoProblems(site);
    await site.context.close();
  });
});

describe("without JavaScript", () => {
  it("logs in through the plain form", async () => {
    const api = client(server.url);
    const user = await buildUser(server, api);
    const site = await openSite(browser, server.config.publicUrl, { javaScriptEnabled: false });
    await logIn(site.page, user.email, user.password);
    await site.page.waitForURL((url) => url.pathname === "/");
    await shows(site.page.locator(".user-menu summary", { hasText: user.username }));
    await site.context.close();
  });
});

describe("form posts from another site", () => {
  it("are refused", async () => {
    const response = await postForm(server, "/login", "email=a%40b.co&password=x", {
      origin: "https://evil.example",
    });
    expect(response.status).toBe(403);
  });
});

describe("on a site served at an IP address (issue 50)", () => {
  it("offers no passkeys, says why on the security page, and names this browser", async () => {
    const user = await buildUser(server, client(server.url));
    const site = await openSite(browser, server.config.publicUrl);
    const { page } = site;
    // WebAuthn takes no IP address as its relying party: no button that could only fail.
    await page.goto("/login");
    await shows(page.getByRole("heading", { name: "Log in to your account" }));
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).count()).toBe(0);
    await fill(page, { Email: user.email, Password: user.password });
    await page.getByRole("button", { name: "Login" }).click();
    await page.waitForURL((url) => url.pathname === "/");

    await page.goto("/settings/security");
    await shows(page.getByRole("heading", { name: "Passkeys" }));
    const host = new URL(server.config.publicUrl).hostname;
    await shows(
      page.getByText(
        `Passkeys need this site to be reached by its domain name, and it is served at an IP address (${host}).`,
      ),
    );
    expect(await page.getByRole("button", { name: "Add a passkey" }).count()).toBe(0);
    // This browser by its name (headless Chromium says Chrome), not its system alone.
    const here = page.getByRole("listitem").filter({ hasText: "This device" });
    expect(await here.locator("strong").textContent()).toMatch(/^Chrome on /);
    await expectAccessible(page);
    expectNoProblems(site);
    await site.context.close();
  });
});
