import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory, type PostDetail } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { launchBrowser } from "./browser.js";

// An API client hosted on its own origin, as the original React client was: a page served by a
// second server, whose script signs in and publishes a post with an image through the API. One
// such origin is listed in CORS_ORIGINS; another, identical, is not. The browser enforces CORS.

/** The client's script: reads the form, signs in, then posts with the bearer token. */
const CLIENT_SCRIPT = `
const api = document.querySelector('meta[name="api"]').content;
const result = document.getElementById("result");

async function call(path, init) {
  const response = await fetch(api + path, init);
  const body = await response.json();
  if (!response.ok) throw new Error(response.status + " " + body.message);
  return body;
}

document.getElementById("publish").addEventListener("submit", async (event) => {
  event.preventDefault();
  const fields = new FormData(event.target);
  result.textContent = "working";
  try {
    const { token } = await call("/api/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: fields.get("email"), password: fields.get("password") }),
    });
    const image = await (await fetch("/photo.png")).blob();
    const post = new FormData();
    post.append("title", fields.get("title"));
    post.append("category", "Travel");
    post.append("description", "Published from a client on another origin.");
    post.append("image", image, "photo.png");
    const created = await call("/api/posts", {
      method: "POST",
      headers: { Authorization: "Bearer " + token },
      body: post,
    });
    result.textContent = "created " + created._id;
  } catch (error) {
    result.textContent = "failed: " + error.message;
  }
});
`;

function clientPage(apiUrl: string) {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="api" content="${apiUrl}"><title>Other client</title></head>
<body>
<form id="publish">
  <label>E-mail <input name="email"></label>
  <label>Password <input name="password" type="password"></label>
  <label>Title <input name="title"></label>
  <button>Publish</button>
</form>
<output id="result"></output>
<script type="module" src="/client.js"></script>
</body>
</html>`;
}

interface ClientSite {
  origin: string;
  server: Server;
}

/** The client's own little web server on a port of its own: another origin than the API's. */
async function serveClient(apiUrl: () => string, photo: Buffer): Promise<ClientSite> {
  const server = createServer((request, response) => {
    const files: Record<string, [string, string | Buffer]> = {
      "/": ["text/html; charset=utf-8", clientPage(apiUrl())],
      "/client.js": ["text/javascript", CLIENT_SCRIPT],
      "/photo.png": ["image/png", photo],
    };
    const file = files[request.url ?? ""];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${String(port)}`, server };
}

let api: TestServer;
let http: Client;
let browser: Browser;
let member: TestUser;
let listed: ClientSite;
let stranger: ClientSite;

beforeAll(async () => {
  const photo = await pngImage(320, 200);
  // The client sites must exist before the API is told which origin to allow.
  listed = await serveClient(() => api.url, photo);
  stranger = await serveClient(() => api.url, photo);
  api = await startTestServer({ CORS_ORIGINS: listed.origin });
  http = client(api.url);
  const admin = await signInAdmin(api, http);
  await addCategory(http, admin, "Travel");
  member = await buildUser(api, http);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await api.close();
  for (const site of [listed, stranger]) {
    await new Promise((resolve) => site.server.close(resolve));
  }
});

/**
 * The client page in a fresh context; console errors, page errors and requests to any other host
 * are collected. Watched, not routed: while Playwright intercepts requests it answers CORS
 * preflights itself, and the API's own answers to them would go untested.
 */
async function openClient(site: ClientSite) {
  const context = await browser.newContext();
  const problems: string[] = [];
  const page = await context.newPage();
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(site.origin) && !url.startsWith(api.url)) {
      problems.push(`request to another host: ${url}`);
    }
  });
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.goto(`${site.origin}/`);
  return { context, page, problems };
}

async function publish(page: Page, input: { password: string; title: string }) {
  await page.getByLabel("E-mail").fill(member.email);
  await page.getByLabel("Password").fill(input.password);
  await page.getByLabel("Title").fill(input.title);
  await page.getByRole("button", { name: "Publish" }).click();
  const result = page.locator("#result");
  await expect.poll(() => result.textContent(), { timeout: 10_000 }).not.toMatch(/^(working)?$/);
  return (await result.textContent()) ?? "";
}

/** The methods of the requests the API logged for `path` since log line `from`. */
function methodsLogged(path: string, from: number) {
  return api.logs.slice(from).flatMap((line) => {
    const { req } = JSON.parse(line) as { req?: { method: string; url: string } };
    return req?.url === path ? [req.method] : [];
  });
}

async function titlesOnTheSite() {
  return (await http.get<{ title: string }[]>("/api/posts")).body.map((post) => post.title);
}

describe("an API client on another origin", () => {
  it("is blocked by the browser when its origin is not listed: nothing is sent past the preflight", async () => {
    const { context, page, problems } = await openClient(stranger);
    const from = api.logs.length;
    const result = await publish(page, { password: member.password, title: "Should not exist" });
    expect(result).toBe("failed: Failed to fetch");
    expect(problems.join("\n")).toMatch(/blocked by CORS policy/);
    // The password never left the browser: the preflight was refused, so the sign-in was not sent.
    expect(methodsLogged("/api/auth/login", from)).toEqual(["OPTIONS"]);
    expect(await titlesOnTheSite()).not.toContain("Should not exist");
    await context.close();
  });

  it("reads the API's refusals, so it can show their message", async () => {
    const { context, page, problems } = await openClient(listed);
    const result = await publish(page, { password: "Wrong-Pass1!", title: "Never" });
    expect(result).toBe("failed: 400 Invalid email or password");
    // The browser reports the 400 itself; nothing else went wrong.
    expect(problems.filter((problem) => !/status of 400/.test(problem))).toEqual([]);
    await context.close();
  });

  it("signs in and publishes a post with an image when its origin is listed", async () => {
    const { context, page, problems } = await openClient(listed);
    const from = api.logs.length;
    const result = await publish(page, { password: member.password, title: "Across origins" });
    expect(result).toMatch(/^created [0-9a-f-]{36}$/);
    expect(problems).toEqual([]);
    // The browser asked first, as it does for a JSON body or a bearer token, and the API agreed.
    expect(methodsLogged("/api/auth/login", from)).toEqual(["OPTIONS", "POST"]);
    expect(methodsLogged("/api/posts", from)).toEqual(["OPTIONS", "POST"]);
    await context.close();

    const id = result.replace("created ", "");
    const post = await http.get<PostDetail>(`/api/posts/${id}`);
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({
      title: "Across origins",
      category: "Travel",
      user: { _id: member.id },
    });
    const image = await fetch(post.body.image.url);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/webp");
  });
});
