import { readFile } from "node:fs/promises";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { type TestUser } from "../support/factories.js";
import { addComment, addPost, toggleLikeOf, type PostDetail } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  shows,
  type Watched,
  openBrowserSite,
  ownerMenu,
} from "./browser.js";
import { overflowsOf, SCREENS } from "./measure.js";

// The stats pages (issue 37): a writer's, a post's and the admin's, drawn on the server. Views
// are made by fetching the post page as a desktop browser would (the test's own headless
// Chromium is not counted), written every 100 ms.

const {
  server,
  api,
  admin,
  open,
  users: { writer, neighbour },
} = await openBrowserSite({
  app: { viewFlushMs: 100 },
  users: { writer: { username: "wanderer" }, neighbour: { username: "neighbour" } },
  categories: ["Travel"],
});

let post: PostDetail;

/** Three readers' browsers: from one address, each is a visitor by its user agent. */
const READERS = [
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0",
];

/** What the writer's numbers are once the views below are written. */
const EXPECTED = { views: 5, visitors: 3, likes: 1, comments: 1 };

async function readPost(userAgent: string, referer: string) {
  const response = await fetch(`${server.url}/posts/details/${post._id}`, {
    headers: { "user-agent": userAgent, referer, accept: "text/html" },
  });
  expect(response.status).toBe(200);
  await response.text();
}

/** Waits (up to 10 s) until the views are written and the writer's numbers are all there. */
async function countedViews() {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await api.get("/api/stats/me?days=7", { token: writer.token });
    const numbers = {
      views: body.views,
      visitors: body.visitors,
      likes: body.likes,
      comments: body.comments,
    };
    if (JSON.stringify(numbers) === JSON.stringify(EXPECTED) || Date.now() > deadline) {
      expect(numbers).toEqual(EXPECTED);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  post = await addPost(api, writer, { title: "Walking the coast", category: "Travel" });
  await addPost(api, writer, { title: "Notes for later", category: "Travel" });
  const [first = "", second = "", third = ""] = READERS;
  // A reader counts for the site their day's first view came from: news twice, the forum once.
  for (let i = 0; i < 3; i += 1) await readPost(first, "https://news.example.com/item?id=7");
  await readPost(second, "https://forum.example.org/t/walks");
  await readPost(third, "https://news.example.com/");
  await toggleLikeOf(api, neighbour, post._id);
  await addComment(api, neighbour, post._id, "I walked it too.");
  await countedViews();
});

type Theme = "light" | "dark";

/** A browser signed in as `user`, in a theme chosen on the site, on one of the two screens. */
async function openAs(
  user: TestUser | undefined,
  options: { theme?: Theme; screen?: (typeof SCREENS)[number]; javaScriptEnabled?: boolean } = {},
) {
  const site = await open({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    signedIn: user?.token,
  });
  await site.page.setViewportSize((options.screen ?? SCREENS[0]).size);
  if (options.theme) {
    // The other theme for the system, so the page's own choice is what shows.
    await site.page.emulateMedia({ colorScheme: options.theme === "dark" ? "light" : "dark" });
    await site.context.addCookies([
      { name: "theme", value: options.theme, url: server.config.publicUrl },
    ]);
  }
  return site;
}

async function done(site: Watched) {
  expectNoProblems(site);
  await site.context.close();
}

/** A page's status, once it has shown its heading. */
async function visit(page: Page, path: string, heading: string | RegExp) {
  const response = await page.goto(path);
  await shows(page.getByRole("heading", { level: 1, name: heading }));
  return response?.status();
}

/** The number a total's card shows under its label. */
const total = (page: Page, label: string) =>
  page
    .getByRole("main")
    .locator("dt", { hasText: new RegExp(`^${label}$`) })
    .locator("xpath=following-sibling::dd[1]")
    .textContent();

/** A chart's "Show as a table", opened as a reader opens it (once), and its table. */
async function tableOf(page: Page, title: string) {
  const section = page.getByRole("region", { name: title });
  const table = section.getByRole("table", { name: title });
  if (!(await table.isVisible())) await section.getByText("Show as a table").click();
  await shows(table);
  return table;
}

/** The plot of `title`: its bars, named by their values, in a group named by its summary. */
const plotOf = (page: Page, title: string) =>
  page.getByRole("region", { name: title }).getByRole("group", { name: new RegExp(`^${title}`) });

/** The chart of `title` and its table of the same numbers, each day a row. */
async function chartOf(page: Page, title: string) {
  const chart = plotOf(page, title);
  await shows(chart);
  const table = await tableOf(page, title);
  return {
    summary: await chart.getAttribute("aria-label"),
    rows: await table.getByRole("row").count(),
    today: await table.getByRole("row").last().getByRole("cell").allTextContents(),
    todayTitle: await chart.getByRole("img").last().getAttribute("aria-label"),
  };
}

const rangeLink = (page: Page, days: number) =>
  page
    .getByRole("navigation", { name: "Days shown" })
    .getByRole("link", { name: `${String(days)} days`, exact: true });

describe("a writer's stats", () => {
  for (const theme of ["light", "dark"] as const) {
    for (const screen of SCREENS) {
      it(`shows the numbers, the charts and their tables, and a post's own page (${theme}, ${screen.name})`, async () => {
        const site = await openAs(writer, { theme, screen });
        const { page } = site;
        expect(await visit(page, "/stats", "Stats")).toBe(200);
        expect(await page.evaluate(`document.documentElement.getAttribute("data-theme")`)).toBe(
          theme,
        );
        for (const [label, value] of [
          ["Views", EXPECTED.views],
          ["Visitors", EXPECTED.visitors],
          ["Likes", EXPECTED.likes],
          ["Comments", EXPECTED.comments],
        ] as const) {
          expect(await total(page, label), label).toBe(String(value));
        }
        expect(await rangeLink(page, 30).getAttribute("aria-current")).toBe("page");
        expect(await rangeLink(page, 7).getAttribute("aria-current")).toBeNull();
        const views = await chartOf(page, "Views and visitors per day");
        expect(views.summary).toContain("5 views, 3 visitors in all");
        expect(views.rows).toBe(31);
        expect(views.today).toEqual(["5", "3"]);
        expect(views.todayTitle).toMatch(/: 5 views, 3 visitors$/);
        const reactions = await chartOf(page, "Likes and comments per day");
        expect(reactions.today).toEqual(["1", "1"]);
        const read = page.getByRole("region", { name: "Most read posts" }).getByRole("listitem");
        expect(await read.allTextContents()).toEqual(["Walking the coast5 views"]);
        const from = page.getByRole("region", { name: "Where readers came from" });
        expect(await from.getByRole("listitem").allTextContents()).toEqual([
          "news.example.com2 visitors",
          "forum.example.org1 visitor",
        ]);
        expect(await overflowsOf(page)).toEqual([]);
        await expectAccessible(page);

        await page.getByRole("link", { name: "Walking the coast" }).click();
        await page.waitForURL(`**/stats/posts/${post._id}`);
        await shows(page.getByRole("heading", { level: 1, name: "Stats: Walking the coast" }));
        expect(await total(page, "Views")).toBe("5");
        expect(await total(page, "Likes")).toBe("1");
        expect((await chartOf(page, "Views and visitors per day")).today).toEqual(["5", "3"]);
        await shows(page.getByRole("link", { name: "Read the post" }));
        expect(await overflowsOf(page)).toEqual([]);
        await expectAccessible(page);
        await done(site);
      });
    }
  }

  it("switches range with plain links, downloads the CSV and is reached from the account menu", async () => {
    const site = await openAs(writer);
    const { page } = site;
    await page.goto("/");
    await page.getByRole("banner").locator("summary", { hasText: writer.username }).click();
    await page.getByRole("banner").getByRole("link", { name: "Stats", exact: true }).click();
    await page.waitForURL("**/stats");
    await rangeLink(page, 7).click();
    await page.waitForURL("**/stats?days=7");
    await expect.poll(() => rangeLink(page, 7).getAttribute("aria-current")).toBe("page");
    expect((await chartOf(page, "Views and visitors per day")).rows).toBe(8);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("stats-7d.csv");
    const lines = (await readFile(await download.path(), "utf8")).trimEnd().split("\r\n");
    expect(lines[0]).toBe("date,views,visitors,likes,comments");
    expect(lines).toHaveLength(8);
    expect(lines.at(-1)).toMatch(/^\d{4}-\d{2}-\d{2},5,3,1,1$/);
    await done(site);

    // As sent: a file of this type, named for its range; another range is refused as the API's.
    const cookie = `session=${writer.token}`;
    const file = await fetch(`${server.url}/stats/export.csv?days=90`, { headers: { cookie } });
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="stats-90d.csv"');
    expect((await file.text()).split("\r\n")).toHaveLength(92);
    const refused = await fetch(`${server.url}/stats/export.csv?days=14`, { headers: { cookie } });
    expect(refused.status).toBe(400);
  });

  it("works without JavaScript; another range is a 400 offering the ranges; visitors sign in first", async () => {
    const site = await openAs(writer, { javaScriptEnabled: false });
    const { page } = site;
    await visit(page, "/stats", "Stats");
    expect((await chartOf(page, "Views and visitors per day")).today).toEqual(["5", "3"]);
    await rangeLink(page, 90).click();
    await page.waitForURL("**/stats?days=90");
    expect((await chartOf(page, "Views and visitors per day")).rows).toBe(91);
    expect(await visit(page, "/stats?days=14", "Stats")).toBe(400);
    await shows(page.getByRole("alert").getByText(/Stats cover the last 7, 30 or 90 days/));
    await shows(rangeLink(page, 30));
    await done(site);

    const visitor = await openAs(undefined);
    await visitor.page.goto("/stats");
    const sentTo = new URL(visitor.page.url());
    expect(sentTo.pathname).toBe("/");
    expect(sentTo.searchParams.get("from")).toBe("/stats");
    await done(visitor);
  });
});

describe("a post's stats", () => {
  it("are linked from its author's tools, shown to admins, and not found for anyone else", async () => {
    const site = await openAs(writer);
    const { page } = site;
    await page.goto(`/posts/details/${post._id}`);
    // In the author's "More" (issue 50).
    await (await ownerMenu(page)).getByRole("link", { name: "Stats", exact: true }).click();
    await page.waitForURL(`**/stats/posts/${post._id}`);
    await shows(page.getByRole("heading", { level: 1, name: "Stats: Walking the coast" }));
    await page.getByRole("link", { name: "Read the post" }).click();
    await page.waitForURL(`**/posts/details/${post._id}`);
    await done(site);

    const other = await openAs(neighbour);
    expect(await visit(other.page, `/stats/posts/${post._id}`, "Page Not Found")).toBe(404);
    await other.page.goto(`/posts/details/${post._id}`);
    await shows(other.page.getByRole("heading", { level: 1, name: "Walking the coast" }));
    expect(
      await other.page.getByRole("main").getByRole("link", { name: "Stats", exact: true }).count(),
    ).toBe(0);
    await done(other);

    const moderator = await openAs(admin);
    expect(
      await visit(moderator.page, `/stats/posts/${post._id}`, "Stats: Walking the coast"),
    ).toBe(200);
    await done(moderator);
  });
});

describe("the site's stats", () => {
  for (const theme of ["light", "dark"] as const) {
    for (const screen of SCREENS) {
      it(`show the admin the totals and trends (${theme}, ${screen.name})`, async () => {
        const expected = (
          await api.get<Record<string, number>>("/api/admin/stats", { token: admin.token })
        ).body;
        const site = await openAs(admin, { theme, screen });
        const { page } = site;
        await page.goto("/admin-dashboard");
        await page
          .getByRole("navigation", { name: "Dashboard" })
          .getByRole("link", { name: "Stats" })
          .click();
        await page.waitForURL("**/admin-dashboard/stats");
        await shows(page.getByRole("heading", { level: 1, name: "Site stats" }));
        for (const [label, key] of [
          ["Views", "views"],
          ["Visitors", "visitors"],
          ["Sign-ups", "signups"],
          ["Posts", "posts"],
          ["Comments", "comments"],
        ] as const) {
          expect(await total(page, label), label).toBe(String(expected[key]));
        }
        expect(expected.views).toBe(EXPECTED.views);
        expect(expected.signups).toBe(3);
        const trends = await chartOf(page, "Sign-ups, posts and comments per day");
        expect(trends.today).toEqual(["3", "2", "1"]);
        expect((await chartOf(page, "Views and visitors per day")).today).toEqual(["5", "3"]);
        expect(await overflowsOf(page)).toEqual([]);
        await expectAccessible(page);
        await done(site);
      });
    }
  }

  it("are the admins' alone: a member is told so (403), a visitor sent home", async () => {
    const site = await openAs(neighbour);
    const answer = await site.page.goto("/admin-dashboard/stats");
    expect(answer?.status()).toBe(403);
    await site.page.getByRole("heading", { name: "Admins only" }).waitFor();
    expect(await site.page.getByText("Site stats").count()).toBe(0);
    await done(site);
    const visitor = await fetch(`${server.url}/admin-dashboard/stats`, { redirect: "manual" });
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("location")).toBe("/");
    expect((await api.get("/api/admin/stats", { token: neighbour.token })).status).toBe(403);
  });
});

// Issue 50 (decision 031, "Stats charts"): the y-axis, values on hover and focus, the table view,
// weeks on a phone, the empty state, the post's and the admin's CSV, the admin's rankings.
describe("the charts", () => {
  /** What each bar is named ("Nov 3: 5 views, 3 visitors"), oldest first. */
  const barNames = (page: Page, title: string) =>
    plotOf(page, title)
      .getByRole("img")
      .evaluateAll((nodes) =>
        nodes.map(
          (node) =>
            (node as unknown as { getAttribute(name: string): string | null }).getAttribute(
              "aria-label",
            ) ?? "",
        ),
      );

  /** The tooltip a bar shows (its `::after`, made of its name): its content, or "none". */
  const tooltipOf = (bar: Locator) =>
    bar.evaluate((node) => {
      const view = globalThis as unknown as {
        getComputedStyle(element: unknown, pseudo: string): { content: string };
      };
      const { content } = view.getComputedStyle(node, "::after");
      return content === "normal" || content === "" ? "none" : content;
    });

  it("draws 90 days on a phone as weeks of bars 3 px wide or more, inside the page", async () => {
    const site = await openAs(writer, { screen: SCREENS[1] });
    const { page } = site;
    expect(await visit(page, "/stats?days=90", "Stats")).toBe(200);
    const chart = plotOf(page, "Views and visitors per day");
    await shows(chart);
    // 90 days at 3 px a bar do not fit 390 px: 13 weeks (the first one 6 days), ending today.
    expect(await chart.getAttribute("aria-label")).toMatch(
      /^Views and visitors per day, by week, .*: 5 views, 3 visitors in all\./,
    );
    const weeks = await barNames(page, "Views and visitors per day");
    expect(weeks).toHaveLength(13);
    expect(weeks.at(-1)).toMatch(
      /^[A-Z][a-z]{2} \d{1,2} to [A-Z][a-z]{2} \d{1,2}: 5 views, 3 visitors$/,
    );
    const widths = await chart
      .locator("rect")
      .evaluateAll((nodes) =>
        nodes.map(
          (node) =>
            (
              node as unknown as { getBoundingClientRect(): { width: number } }
            ).getBoundingClientRect().width,
        ),
      );
    expect(widths.length).toBeGreaterThan(0);
    expect(Math.min(...widths)).toBeGreaterThanOrEqual(3);
    // The table still has every day.
    expect(await (await tableOf(page, "Views and visitors per day")).getByRole("row").count()).toBe(
      91,
    );
    expect(await overflowsOf(page)).toEqual([]);

    // A laptop has room for the 90 days themselves, each bar still 3 px or more.
    await page.setViewportSize(SCREENS[0].size);
    await expect.poll(() => barNames(page, "Views and visitors per day")).toHaveLength(90);
    const dayWidths = await plotOf(page, "Views and visitors per day")
      .locator("rect")
      .evaluateAll((nodes) =>
        nodes.map(
          (node) =>
            (
              node as unknown as { getBoundingClientRect(): { width: number } }
            ).getBoundingClientRect().width,
        ),
      );
    expect(Math.min(...dayWidths)).toBeGreaterThanOrEqual(3);
    expect(await overflowsOf(page)).toEqual([]);
    await done(site);
  });

  it("shows a bar's values on focus and on hover, moves along the days with the arrow keys, and has round y-axis values", async () => {
    const site = await openAs(writer);
    const { page } = site;
    await visit(page, "/stats?days=7", "Stats");
    const chart = plotOf(page, "Views and visitors per day");
    const bars = chart.getByRole("img");
    expect(await bars.count()).toBe(7);
    const today = bars.last();
    const name = (await today.getAttribute("aria-label")) ?? "";
    expect(name).toMatch(/^[A-Z][a-z]{2} \d{1,2}: 5 views, 3 visitors$/);
    // One stop in the tab order, today's; the tooltip shows only when asked for.
    expect(await chart.locator('[tabindex="0"]').count()).toBe(1);
    expect(await today.getAttribute("tabindex")).toBe("0");
    expect(await tooltipOf(today)).toBe("none");
    await today.focus();
    expect([`"${name}"`, "attr(aria-label)"]).toContain(await tooltipOf(today));

    // The arrow keys are the page's script's: wait until React has taken the chart over.
    await expect
      .poll(() =>
        today.evaluate((node) => Object.keys(node).some((key) => key.startsWith("__reactProps"))),
      )
      .toBe(true);

    await page.keyboard.press("ArrowLeft");
    const yesterday = bars.nth(5);
    await expect
      .poll(() =>
        yesterday.evaluate(
          (node) =>
            node ===
            (globalThis as unknown as { document: { activeElement: unknown } }).document
              .activeElement,
        ),
      )
      .toBe(true);
    expect(await yesterday.getAttribute("aria-label")).toMatch(/: 0 views, 0 visitors$/);
    expect(await yesterday.getAttribute("tabindex")).toBe("0");
    expect(await today.getAttribute("tabindex")).toBe("-1");
    await page.keyboard.press("Home");
    await expect
      .poll(() =>
        bars
          .first()
          .evaluate(
            (node) =>
              node ===
              (globalThis as unknown as { document: { activeElement: unknown } }).document
                .activeElement,
          ),
      )
      .toBe(true);

    // The pointer's bar shows its values, and the focused one's tooltip steps aside.
    await today.hover();
    expect(await tooltipOf(today)).not.toBe("none");
    expect(await tooltipOf(bars.first())).toBe("none");

    // The y-axis: 0 and round steps up to 5 or more (5 views, 3 visitors).
    const axis = await page
      .getByRole("region", { name: "Views and visitors per day" })
      .locator(".chart-axis")
      .filter({ visible: true })
      .locator("span")
      .allTextContents();
    expect(axis).toEqual(["6", "4", "2", "0"]);
    await done(site);
  });

  it("has a table view of the same numbers as its bars", async () => {
    const site = await openAs(writer, { javaScriptEnabled: false });
    const { page } = site;
    await visit(page, "/stats?days=7", "Stats");
    for (const title of ["Views and visitors per day", "Likes and comments per day"]) {
      const fromBars = (await barNames(page, title)).map((name) =>
        [...(name.split(": ")[1] ?? "").matchAll(/(\d[\d,]*) /g)].map((match) => match[1]),
      );
      const rows = (await tableOf(page, title)).getByRole("row");
      expect(await rows.count()).toBe(8);
      const fromTable: string[][] = [];
      for (let at = 1; at < 8; at += 1) {
        fromTable.push(await rows.nth(at).getByRole("cell").allTextContents());
      }
      expect(fromTable, title).toEqual(fromBars);
    }
    expect(
      await (
        await tableOf(page, "Views and visitors per day")
      )
        .getByRole("row")
        .last()
        .getByRole("cell")
        .allTextContents(),
    ).toEqual(["5", "3"]);
    await done(site);
  });

  it("says plainly when a range has no views, with a hint, instead of an empty chart", async () => {
    const site = await openAs(neighbour, { screen: SCREENS[1] });
    const { page } = site;
    expect(await visit(page, "/stats?days=7", "Stats")).toBe(200);
    const views = page.getByRole("region", { name: "Views and visitors per day" });
    await shows(
      views.getByText(/^No views in the last 7 days yet\. Share a post where your readers are/),
    );
    expect(await views.getByRole("group").count()).toBe(0);
    expect(await views.getByRole("table").count()).toBe(0);
    await shows(
      page
        .getByRole("region", { name: "Likes and comments per day" })
        .getByText("No likes or comments in the last 7 days."),
    );
    expect(await overflowsOf(page)).toEqual([]);
    await expectAccessible(page);
    await done(site);
  });

  it("offers a post's numbers as a CSV on its page, to its author and admins only", async () => {
    const site = await openAs(writer);
    const { page } = site;
    await visit(page, `/stats/posts/${post._id}?days=7`, "Stats: Walking the coast");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`stats-${post._id}-7d.csv`);
    const lines = (await readFile(await download.path(), "utf8")).trimEnd().split("\r\n");
    expect(lines[0]).toBe("date,views,visitors,likes,comments");
    expect(lines).toHaveLength(8);
    expect(lines.at(-1)).toMatch(/^\d{4}-\d{2}-\d{2},5,3,1,1$/);
    await done(site);

    const file = `${server.url}/stats/posts/${post._id}/export.csv`;
    const asAdmin = await fetch(file, { headers: { cookie: `session=${admin.token}` } });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect((await asAdmin.text()).split("\r\n")).toHaveLength(32);
    const other = await fetch(file, { headers: { cookie: `session=${neighbour.token}` } });
    expect(other.status).toBe(404);
  });

  it("gives the admin the site's CSV, its most read posts and where readers came from", async () => {
    const site = await openAs(admin);
    const { page } = site;
    await visit(page, "/admin-dashboard/stats", "Site stats");
    const read = page.getByRole("region", { name: "Most read posts" });
    expect(await read.getByRole("listitem").allTextContents()).toEqual([
      "Walking the coast5 views, 3 visitors",
    ]);
    expect(await read.getByRole("link", { name: "Walking the coast" }).getAttribute("href")).toBe(
      `/posts/details/${post._id}`,
    );
    const from = page.getByRole("region", { name: "Where readers came from" });
    expect(await from.getByRole("listitem").allTextContents()).toEqual([
      "news.example.com2 visitors",
      "forum.example.org1 visitor",
    ]);
    // Other sites' names as text: never a link to them.
    expect(await from.getByRole("link").count()).toBe(0);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("site-stats-30d.csv");
    const lines = (await readFile(await download.path(), "utf8")).trimEnd().split("\r\n");
    expect(lines[0]).toBe("date,views,visitors,signups,posts,comments,subscribers");
    expect(lines).toHaveLength(31);
    // Today: the views, the admin and two members, two posts, one comment, no subscriber.
    expect(lines.at(-1)).toMatch(/^\d{4}-\d{2}-\d{2},5,3,3,2,1,0$/);
    await done(site);

    const member = await fetch(`${server.url}/admin-dashboard/stats/export.csv`, {
      headers: { cookie: `session=${neighbour.token}` },
      redirect: "manual",
    });
    expect(member.status).toBe(403);
    const visitor = await fetch(`${server.url}/admin-dashboard/stats/export.csv`, {
      redirect: "manual",
    });
    expect(visitor.status).toBe(302);
  });
});
