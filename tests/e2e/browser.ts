import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
} from "playwright-core";
import { afterAll, expect } from "vitest";
import { openTestSite } from "../support/site.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and requests that tried to leave the site. */
  problems: string[];
}

/**
 * A fresh browser context on the site, watched: a console error, an uncaught page error or a
 * request to any other host is a problem the test fails on (STYLE.md, Tests).
 */
export async function openSite(
  browser: Browser,
  siteUrl: string,
  options: {
    javaScriptEnabled?: boolean;
    phone?: boolean;
    bypassCSP?: boolean;
    /** The browser's IANA time zone (the machine's unless a test says). */
    timezoneId?: string;
  } = {},
): Promise<Watched> {
  const context = await browser.newContext({
    baseURL: siteUrl,
    // Off only where a test proves escaping alone keeps user text inert, CSP or not.
    bypassCSP: options.bypassCSP ?? false,
    viewport: options.phone ? { width: 390, height: 800 } : { width: 1280, height: 900 },
    hasTouch: options.phone ?? false,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  const problems: string[] = [];
  const origin = new URL(siteUrl).origin;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
    problems.push(`request to another host: ${url}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    // Failed loads are judged by the response handler below, which knows which request it was.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on("response", (response) => {
    const status = response.status();
    const request = response.request();
    // A refused form answers 4xx on purpose (the action's data, or the page it renders);
    // any other 4xx (a script, a style, an image) and every 5xx is a bug.
    const formAnswer = request.url().includes(".data") || request.method() === "POST";
    if (status >= 500 || (status >= 400 && !formAnswer && request.resourceType() !== "document")) {
      problems.push(`${String(status)} for ${request.method()} ${request.url()}`);
    }
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems };
}

/** Waits (up to 5 s) for an element to show: client navigations render a moment after the URL. */
export async function shows(locator: Locator) {
  await locator.filter({ visible: true }).first().waitFor({ state: "visible", timeout: 5000 });
  return true;
}

/**
 * Opens a disclosure menu (app/ui/disclosure-menu.tsx) and sees that it stays open: one closes
 * itself once an action has answered, a moment after the answer shows, so a menu found open just
 * then may close under the test.
 */
async function openMenu(menu: Locator) {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if ((await menu.getAttribute("open")) === null) await menu.locator(":scope > summary").click();
    await menu.page().waitForTimeout(100);
    if ((await menu.getAttribute("open")) !== null) return menu;
  }
  throw new Error("the menu closed each time it was opened");
}

/**
 * The post owner's "More" on a post page (issue 50), opened: SPEC's Edit Post and image upload,
 * Stats, Unpublish and Delete Post are in it.
 */
export const ownerMenu = (page: Page) => openMenu(page.locator("details.owner-menu"));

/**
 * A users-table row's "Actions" menu (issue 50), opened: View Profile, and for another account
 * Suspend or Restore and Delete User.
 */
export const rowActions = (row: Locator) => openMenu(row.locator("details.row-menu"));

export function expectNoProblems(watched: Watched) {
  expect(watched.problems).toEqual([]);
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** A violation of a third-party page part we cannot change: its rule and the elements it is on. */
export interface KnownIssue {
  rule: string;
  selector: string;
}

/**
 * Runs axe-core on the page; serious and critical violations fail the test, but for `known` ones
 * (a third-party viewer's own markup, each named in a decision record).
 */
export async function expectAccessible(page: Page, known: readonly KnownIssue[] = []) {
  // Evaluated through the DevTools protocol, so the page's CSP does not apply to it.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (issues) => {
    const axe = (
      globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const dom = globalThis as unknown as {
      document: { querySelector(selector: string): { matches(selector: string): boolean } | null };
    };
    const isKnown = (rule: string, target: unknown[]) =>
      issues.some(
        (issue) =>
          issue.rule === rule &&
          typeof target[0] === "string" &&
          dom.document.querySelector(target[0])?.matches(issue.selector) === true,
      );
    const result = await axe.run();
    return result.violations
      .map(({ id, impact, help, nodes }) => ({
        id,
        impact,
        help,
        nodes: nodes.map((node) => node.target).filter((target) => !isKnown(id, target)),
      }))
      .filter((violation) => violation.nodes.length > 0);
  }, known);
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious, `${page.url()}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
}

/** A value the page keeps in localStorage. */
export function readLocalStorage(page: Page, key: string) {
  return page.evaluate(
    (name) =>
      (
        globalThis as unknown as { localStorage: { getItem(name: string): string | null } }
      ).localStorage.getItem(name),
    key,
  );
}

/** Signs the browser in with an API login token, as the login form would leave it. */
export async function signIn(watched: Watched, siteUrl: string, token: string) {
  await watched.context.addCookies([
    { name: "session", value: token, url: siteUrl, httpOnly: true },
  ]);
}

/**
 * The set-up most browser test files share: `openTestSite`'s server, admin, members and
 * categories, and a browser; both close after the file's tests.
 */
export async function openBrowserSite<const Name extends string = never>(
  options: Parameters<typeof openTestSite<Name>>[0] = {},
) {
  const site = await openTestSite<Name>(options);
  const browser = await launchBrowser();
  afterAll(() => browser.close());
  const siteUrl = site.server.config.publicUrl;
  /** `openSite` on this site, signed in with `signedIn` (a login token) when it is given. */
  const open = async (
    openOptions: Parameters<typeof openSite>[2] & { signedIn?: string | undefined } = {},
  ) => {
    const { signedIn, ...rest } = openOptions;
    const watched = await openSite(browser, siteUrl, rest);
    if (signedIn !== undefined) await signIn(watched, siteUrl, signedIn);
    return watched;
  };
  return { ...site, browser, open };
}
