import path from "node:path";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import { matchRoutes } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pageRoutes from "../../app/routes.js";
import { RESET_TOKEN_TTL_MS } from "../../core/auth/auth-service.js";
import { issueToken } from "../../core/auth/verification-tokens.js";
import { unsubscribeToken } from "../../core/conversation-mail/unsubscribe.js";
import { subscriptionLinks } from "../../core/newsletter/subscriptions.js";
import { loadSearchRank } from "../../db/search-rank.js";
import { SQLite } from "../../db/sqlite-driver.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import {
  addCategory,
  addComment,
  addPost,
  toggleLikeOf,
  type PostDetail,
} from "../support/post-fixtures.js";
import { seriesCalls } from "../support/series-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/**
 * Every page of the site and every GET call of the API costs a fixed number of queries, however
 * many posts, comments, likes, users, follows, saved posts, notifications, reports and audit
 * entries it shows: no query per row (N+1). And every query reads its tables through an index,
 * never a whole table. Which pages and calls are asked is checked against the route tables
 * themselves (app/routes.ts, the server's /api routes), so a new one cannot go uncounted.
 */
let server: TestServer;
let api: Client;
let admin: TestUser;
let author: TestUser;
let viewer: TestUser;
let queries: string[] = [];

/**
 * The most queries any one page or call may take: the signed-in post page takes 9 (its reader's
 * unread notifications and Saved/Following state, decision 016), 10 for its author's page of a
 * draft in a series (the parts readers see, decision 032); the full editor showing a revision
 * takes 10 too (the writer's series to choose from).
 */
const MOST_QUERIES = 10;

/** Who asks: pages carry the session cookie (as a browser does), calls the bearer token. */
type Who = "visitor" | "member" | "admin";

interface Ask {
  /** The address, or how to make it just before asking (a link that works once). */
  path: string | (() => Promise<string>);
  as: Who;
  /** 200 unless said. */
  status?: number;
  /** Text the answer must hold where its status alone does not show it did its work. */
  shows?: string;
}

/** What one ask ran: its route (as the route table names it), its address and its queries. */
interface Measured {
  route: string;
  path: string;
  queries: string[];
}

/**
 * The GET routes neither measure asks for, and why: none runs a query. Each is asked once (as a
 * visitor, with the address it is for) and must still answer with its status here and without one
 * query, so an exclusion that has become a page of its own fails.
 */
const NOT_COUNTED: Record<string, { path: string; status: number }> = {
  // Forms' own addresses (sign out, report, follow, save, theme): a GET (a reload, a shared link)
  // only goes home.
  "page /logout": { path: "/logout", status: 302 },
  "page /report": { path: "/report", status: 302 },
  "page /follow": { path: "/follow", status: 302 },
  "page /bookmark": { path: "/bookmark", status: 302 },
  "page /theme": { path: "/theme", status: 302 },
  // The editor's preview and image uploads: resource routes that take a POST alone.
  "page /posts/preview": { path: "/posts/preview", status: 405 },
  "page /posts/autosave": { path: "/posts/autosave", status: 405 },
  "page /posts/images": { path: "/posts/images", status: 405 },
  // A draft page saving itself (decision 032), POST alone as a post's draft's.
  "page /admin-dashboard/page-autosave": { path: "/admin-dashboard/page-autosave", status: 405 },
  // The security page's passkey options (decision 024), POST alone too.
  "page /settings/security/passkey-options": {
    path: "/settings/security/passkey-options",
    status: 405,
  },
  // A mail client without one-click unsubscribe opens the mail's address: it is sent on to the
  // unsubscribe page, which is counted.
  "GET /api/unsubscribe/:userId/:token": { path: "/api/unsubscribe/:userId/:token", status: 303 },
};

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      // The publisher's and the outbox's statements are their own, not the request's they overlap.
      onQuery: (sql, background) => {
        if (!background) queries.push(sql);
      },
      // A member page checked against its whole render would count both renders' reads.
      verifyMemberPages: false,
    },
  );
  api = client(server.url);
  admin = await signInAdmin(server, api);
  await addCategory(api, admin, "Travel");
  await addCategory(api, admin, "Food");
  author = await buildUser(server, api);
  viewer = await buildUser(server, api);
});
afterAll(async () => {
  await server.close();
});

const tokenOf = (who: Who) =>
  who === "admin" ? admin.token : who === "member" ? viewer.token : undefined;

/** One request, alone: its answer and the queries it ran. */
async function request(kind: "page" | "call", where: string, as: Who) {
  const token = tokenOf(as);
  const headers: Record<string, string> = {
    // The mailed verification link is a page to a browser and a call to an API client.
    accept: kind === "page" ? "text/html" : "application/json",
  };
  if (token && kind === "page") headers.cookie = `session=${token}`;
  if (token && kind === "call") headers.authorization = `Bearer ${token}`;
  queries = [];
  const response = await fetch(`${server.url}${where}`, { headers, redirect: "manual" });
  const text = await response.text();
  return { status: response.status, text, queries: [...queries] };
}

/** One ask, which must answer as it should. */
async function ask(kind: "page" | "call", { path: asked, as, status = 200, shows }: Ask) {
  const where = typeof asked === "string" ? asked : await asked();
  const answer = await request(kind, where, as);
  expect(answer.status, `${where}: ${answer.text.slice(0, 300)}`).toBe(status);
  if (shows !== undefined) expect(answer.text, where).toContain(shows);
  return { path: where, queries: answer.queries };
}

/** `/posts/details/:id`... for each page of app/routes.ts (a layout is no page of its own). */
function pagePatterns(entries: readonly RouteConfigEntry[], parent = ""): string[] {
  return entries.flatMap((entry) => {
    const here = entry.path ? `${parent}/${entry.path}` : parent;
    return entry.children?.length ? pagePatterns(entry.children, here) : [here || "/"];
  });
}

/** The route a path lands on, ranked as the router ranks them (`/api/posts/feed` before `:id`). */
function routeOf(patterns: readonly string[], address: string) {
  const { pathname } = new URL(address, "http://localhost");
  const match = matchRoutes(
    patterns.map((pattern) => ({ path: pattern })),
    pathname,
  )?.at(-1);
  if (!match?.route.path) throw new Error(`${address} matches no route`);
  return match.route.path;
}

const pages = pagePatterns(pageRoutes);
const getCalls = () =>
  server.app.apiRoutes.filter((route) => route.method === "GET").map((route) => route.url);

/** Every GET route, as `page /path` or `GET /api/path`. */
const everyRoute = () => [
  ...pages.map((pattern) => `page ${pattern}`),
  ...getCalls().map((url) => `GET ${url}`),
];

async function addPeople(count: number) {
  const people: TestUser[] = [];
  for (let i = 0; i < count; i += 1) people.push(await buildUser(server, api));
  return people;
}

/** A set-up request's answer, once it had the status it should. */
async function ok<T extends { status: number; text: string }>(reply: Promise<T>, status = 200) {
  const answer = await reply;
  expect(answer.status, answer.text).toBe(status);
  return answer;
}

const put = (address: string, who: TestUser, body?: unknown) =>
  ok(api.put(address, body, { token: who.token }));

const report = async (who: TestUser, target: Record<string, string>) =>
  (
    await ok(
      api.post<{ _id: string }>(
        "/api/reports",
        { ...target, reason: "spam" },
        { token: who.token },
      ),
      201,
    )
  ).body._id;

/** The two measures (few rows, then many), made once for every test below. */
let small: Measured[] = [];
let large: Measured[] = [];
/** The requests before each measure (see `measure`): their queries are planned too. */
const warmUps: Measured[] = [];
/** The exclusions as asked: how they answered, and what they ran. */
const excluded: { route: string; status: number; queries: string[] }[] = [];

beforeAll(async () => {
  // The world the pages show: every list has rows, and the paged ones a second page.
  const post = await addPost(api, author, {
    title: "Counted",
    category: "Travel",
    tags: "counted",
  });
  const counted: PostDetail[] = [];
  for (let i = 0; i < 7; i += 1) {
    const tags = "counted,more";
    counted.push(
      await addPost(api, author, { title: `Counted ${String(i)}`, category: "Travel", tags }),
    );
  }
  const own = await addPost(api, viewer, { title: "Counted by the reader", category: "Food" });
  const draft = await addPost(api, viewer, { category: "Food", status: "draft" });
  await addPost(api, viewer, {
    category: "Food",
    status: "scheduled",
    publishAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  // An edit of the reader's own post keeps a revision (decision 022).
  await put(`/api/posts/${own._id}`, viewer, { tags: ["edited"] });
  const revisions = await ok(
    api.get<{ _id: string }[]>(`/api/posts/${own._id}/revisions`, { token: viewer.token }),
  );
  const revisionId = revisions.body[0]?._id ?? "";
  // A static page (decision 032), renamed once: a revision and an old slug.
  const about = await ok(
    api.post<{ _id: string }>(
      "/api/pages",
      { title: "About", slug: "about-us", description: "Who *we* are." },
      { token: admin.token },
    ),
    201,
  );
  await put(`/api/pages/${about.body._id}`, admin, { title: "About us", slug: "about" });
  const pageRevisions = await ok(
    api.get<{ _id: string }[]>(`/api/pages/${about.body._id}/revisions`, { token: admin.token }),
  );
  const pageRevisionId = pageRevisions.body[0]?._id ?? "";
  // Series (decision 032): the author's, of three posts (more join it below), and the reader's
  // own, of their post and their draft.
  const { addSeries, orderSeries } = seriesCalls(api);
  const newSeries = async (who: TestUser, title: string, posts: PostDetail[]) => {
    const made = await addSeries(who, { title });
    await orderSeries(made._id, who, posts);
    return made._id;
  };
  const authorSeries = await newSeries(author, "Counted in order", counted.slice(0, 3));
  const ownSeries = await newSeries(viewer, "The reader's series", [own, draft]);
  const inSeries = counted[1]?._id ?? "";
  const remark = await addComment(api, viewer, post._id, "A remark");
  await put(`/api/users/follow/${author.id}`, viewer);
  await put(`/api/posts/bookmark/${post._id}`, viewer);

  /**
   * What one more person brings: a post the reader follows and saves; a comment and a reply the
   * reader is told of, with a like and a follow; reports, open and decided (an audit entry).
   */
  const arrive = async (person: TestUser) => {
    const theirs: PostDetail = await addPost(api, person, {
      title: `Counted by ${person.username}`,
      category: "Travel",
    });
    await put(`/api/users/follow/${person.id}`, viewer);
    await put(`/api/posts/bookmark/${theirs._id}`, viewer);
    await addComment(api, person, own._id, `Remark from ${person.username}`);
    const reply = await ok(
      api.post<{ _id: string }>(
        "/api/comments",
        { postId: post._id, text: `Reply from ${person.username}`, parentId: remark._id },
        { token: person.token },
      ),
      201,
    );
    await toggleLikeOf(api, person, own._id);
    await toggleLikeOf(api, person, post._id);
    await put(`/api/users/follow/${viewer.id}`, person);
    await report(person, { postId: post._id });
    await report(viewer, { commentId: reply.body._id });
    const decided = await report(viewer, { postId: theirs._id });
    await put(`/api/reports/${decided}`, admin, { action: "dismiss" });
  };
  const [first] = await addPeople(1);
  if (!first) throw new Error("no user");
  await arrive(first);
  await report(viewer, { userId: first.id });

  const { deps } = server.app;
  const resetToken = await issueToken(deps, viewer.id, "password", RESET_TOKEN_TTL_MS);
  const unsubscribe = `${viewer.id}/${await unsubscribeToken(deps.db, viewer.id)}`;
  // A reader's newsletter subscription, waiting for its confirmation (decision 028).
  const subscriptionId = "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
  await deps.db
    .insertInto("subscriptions")
    .values({
      id: subscriptionId,
      email: "counted-reader@example.com",
      scope_key: "site",
      author_id: null,
      status: "pending",
      created_at: new Date().toISOString(),
      confirmed_at: null,
      ended_at: null,
    })
    .execute();
  const newsletterLinks = await subscriptionLinks(deps, subscriptionId);
  // A webhook with one delivery behind it, written as the outbox would (decision 025); its worker
  // checks once an hour here, so no delivery is tried while a request is counted.
  const webhookId = "0b7e1f9a-3c44-4d2e-9a51-6f1d2c3b4a59";
  await deps.db
    .insertInto("webhooks")
    .values({
      id: webhookId,
      url: "https://hooks.example.com/blog",
      events: JSON.stringify(["post.published"]),
      secret: "whsec_dGVzdA==",
      created_by: null,
      created_at: new Date().toISOString(),
    })
    .execute();
  await deps.db
    .insertInto("outbox")
    .values({
      id: "5d0c6a8e-2f71-4b1a-8c3e-9b2a7d4e6f10",
      channel: "webhook",
      topic: "post.published",
      recipient_id: null,
      webhook_id: webhookId,
      payload: "{}",
      status: "delivered",
      attempts: 1,
      next_attempt_at: null,
      last_attempt_at: new Date().toISOString(),
      response_status: 200,
      last_error: null,
      created_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
    })
    .execute();
  const newcomer = await buildUser(server, api);
  // A verification link works once: a new one for each time it is opened.
  const verifyLink = async () =>
    `/api/auth/${newcomer.id}/verify/${await issueToken(deps, newcomer.id, "email", RESET_TOKEN_TTL_MS)}`;

  const pageAsks: Ask[] = [
    { path: "/", as: "member" },
    { path: "/?tab=following", as: "member" },
    { path: "/?tab=following&page=2", as: "member" },
    { path: "/posts", as: "member" },
    { path: "/posts?page=2", as: "member" },
    { path: "/posts/create-post", as: "member" },
    // The full editor of the reader's own post, and one of its revisions against it.
    { path: `/posts/edit/${own._id}`, as: "member" },
    { path: `/posts/edit/${own._id}?revision=${revisionId}`, as: "member" },
    { path: `/posts/edit/${own._id}/newsletter`, as: "member", shows: "audience" },
    { path: `/posts/details/${post._id}`, as: "member" },
    { path: `/posts/details/${post._id}?comments=1`, as: "member" },
    // The author's own draft, with its edit form (after its warm-up, below).
    { path: `/posts/details/${draft._id}`, as: "member" },
    { path: "/posts/categories/Travel", as: "member" },
    { path: "/posts/categories/Travel?page=2", as: "member" },
    { path: "/tags/counted", as: "member" },
    { path: "/tags/counted?page=2", as: "member" },
    { path: "/menu", as: "member" },
    { path: "/search", as: "member" },
    { path: "/search?q=counted", as: "member" },
    { path: "/search?q=counted&page=2", as: "member" },
    { path: `/profile/${author.id}`, as: "member" },
    { path: `/profile/${author.id}?page=2`, as: "member" },
    { path: `/profile/${viewer.id}?tab=drafts`, as: "member" },
    { path: `/profile/${viewer.id}?tab=scheduled`, as: "member" },
    { path: "/reading-list", as: "member" },
    { path: "/notifications", as: "member" },
    { path: "/settings", as: "member" },
    { path: "/settings/security", as: "member" },
    // A writer's stats, one post's and their CSV file (issue 37).
    { path: "/stats", as: "member" },
    { path: `/stats/posts/${own._id}`, as: "member" },
    { path: "/stats/export.csv?days=7", as: "member", shows: "date,views,visitors" },
    {
      path: `/stats/posts/${own._id}/export.csv?days=7`,
      as: "member",
      shows: "date,views,visitors",
    },
    { path: "/admin-dashboard/stats/export.csv?days=7", as: "admin", shows: "date,views,visitors" },
    { path: "/email-verified", as: "member", shows: "successfully verified" },
    // The pages of signing in and up are a visitor's (a member is sent home).
    { path: "/login", as: "visitor" },
    { path: "/register", as: "visitor" },
    { path: "/forgot-password", as: "visitor" },
    { path: "/email-sent", as: "visitor" },
    { path: "/password-reset-successfully", as: "visitor" },
    { path: verifyLink, as: "visitor", shows: "successfully verified" },
    { path: `/reset-password/${viewer.id}/${resetToken}`, as: "visitor", shows: "Update Password" },
    { path: `/unsubscribe/${unsubscribe}`, as: "visitor" },
    { path: new URL(newsletterLinks.confirm).pathname, as: "visitor" },
    { path: new URL(newsletterLinks.unsubscribePage).pathname, as: "visitor" },
    { path: "/no-such-page", as: "member", status: 404 },
    { path: "/no/such-page", as: "member", status: 404 },
    // An author's public page (DESIGN.md 11), and the subscribe forms' page (decision 028).
    { path: `/@${author.username}`, as: "visitor" },
    { path: `/@${author.username}?page=2`, as: "member" },
    { path: "/newsletter/subscribe", as: "visitor" },
    { path: "/newsletter/subscribers", as: "member" },
    { path: "/newsletter/subscribers.csv", as: "admin", shows: "email,scope,author" },
    { path: "/newsletter/subscribers?status=pending&q=counted&page=2", as: "admin" },
    { path: "/admin-dashboard", as: "admin" },
    { path: "/admin-dashboard/users-table", as: "admin" },
    { path: "/admin-dashboard/posts-table", as: "admin" },
    { path: "/admin-dashboard/categories-table", as: "admin" },
    { path: "/admin-dashboard/comments-table", as: "admin" },
    { path: "/admin-dashboard/reports-table", as: "admin" },
    { path: "/admin-dashboard/reports-table?status=closed", as: "admin" },
    { path: "/admin-dashboard/audit-log", as: "admin" },
    { path: "/admin-dashboard/site-settings", as: "admin" },
    { path: "/admin-dashboard/webhooks", as: "admin" },
    { path: "/admin-dashboard/stats", as: "admin" },
    { path: "/admin-dashboard/pages", as: "admin" },
    { path: "/admin-dashboard/pages/new", as: "admin" },
    { path: `/admin-dashboard/pages/${about.body._id}`, as: "admin" },
    { path: "/pages/about", as: "visitor" },
    { path: "/pages/about", as: "member" },
    // Series (decision 032): a visitor's and a reader's, the writer's own (drafts, its form), the
    // writer's list, and a post's page with its series' parts.
    { path: `/series/${authorSeries}`, as: "visitor" },
    { path: `/series/${authorSeries}`, as: "member" },
    { path: `/series/${ownSeries}`, as: "member" },
    { path: "/series", as: "member" },
    { path: `/posts/details/${inSeries}`, as: "visitor", shows: "Counted in order" },
    { path: `/posts/details/${inSeries}`, as: "member", shows: "Counted in order" },
  ];
  const callAsks: Ask[] = [
    { path: "/api/posts?pageNumber=1", as: "member" },
    { path: "/api/posts?pageNumber=2", as: "member" },
    { path: "/api/posts?pageNumber=1&category=Travel", as: "member" },
    // Every post at once, in batches (the admin table's call).
    { path: "/api/posts", as: "admin" },
    { path: "/api/posts/count", as: "member" },
    { path: `/api/posts/${post._id}`, as: "member" },
    { path: `/api/posts/${draft._id}`, as: "member" },
    { path: `/api/posts/${own._id}/revisions`, as: "member" },
    { path: `/api/posts/${own._id}/revisions/${revisionId}`, as: "member" },
    { path: "/api/posts/feed?pageNumber=1", as: "member" },
    { path: "/api/posts/feed?pageNumber=2", as: "member" },
    { path: "/api/users/count", as: "admin" },
    { path: "/api/users/profile", as: "admin" },
    { path: `/api/users/profile/${author.id}`, as: "member" },
    { path: `/api/users/profile/${viewer.id}`, as: "member" },
    { path: "/api/users/me/posts?status=draft", as: "member" },
    { path: "/api/users/me/posts?status=scheduled&pageNumber=1", as: "member" },
    { path: `/api/users/user/${author.id}?pageNumber=1`, as: "member" },
    { path: `/api/users/user/${author.id}?pageNumber=2`, as: "member" },
    { path: "/api/users/me/bookmarks?pageNumber=1", as: "member" },
    { path: "/api/users/me/settings", as: "member" },
    { path: "/api/auth/passkeys", as: "member" },
    { path: "/api/auth/sessions", as: "member" },
    { path: "/api/tokens", as: "member" },
    { path: "/api/webhooks", as: "admin" },
    { path: `/api/webhooks/${webhookId}/deliveries?pageNumber=1`, as: "admin" },
    { path: "/api/comments", as: "admin" },
    { path: "/api/categories", as: "member" },
    { path: "/api/tags", as: "member" },
    { path: "/api/posts?tag=counted&pageNumber=1", as: "member" },
    { path: "/api/categories/category/Travel?pageNumber=1", as: "member" },
    { path: "/api/admin/audit?pageNumber=1", as: "admin" },
    { path: "/api/admin/users?pageNumber=1", as: "admin" },
    { path: "/api/reports", as: "admin" },
    { path: "/api/reports?status=closed&pageNumber=1", as: "admin" },
    { path: "/api/notifications?pageNumber=1", as: "member" },
    { path: `/api/stats/posts/${own._id}`, as: "member" },
    { path: `/api/posts/${own._id}/newsletter`, as: "member" },
    // The owners' subscriber lists (decision 028): a page, a search, the CSV file.
    { path: "/api/newsletter/subscribers?pageNumber=1", as: "admin" },
    { path: "/api/newsletter/subscribers?status=pending&q=counted&pageNumber=2", as: "member" },
    { path: "/api/newsletter/subscribers.csv", as: "admin", shows: "counted-reader@example.com" },
    { path: "/api/stats/me?days=90", as: "member" },
    { path: "/api/admin/stats", as: "admin" },
    { path: "/api/settings", as: "member" },
    { path: "/api/search?q=counted%20travel&pageNumber=1", as: "member" },
    { path: verifyLink, as: "member" },
    { path: `/api/password/reset-password/${viewer.id}/${resetToken}`, as: "member" },
    { path: "/api/openapi.json", as: "member" },
    { path: "/api/pages", as: "member" },
    { path: "/api/pages", as: "admin" },
    { path: "/api/pages/about", as: "visitor" },
    { path: "/api/pages/about-us", as: "visitor" },
    { path: `/api/pages/${about.body._id}/revisions`, as: "admin" },
    { path: `/api/pages/${about.body._id}/revisions/${pageRevisionId}`, as: "admin" },
    { path: `/api/series/${authorSeries}`, as: "visitor" },
    { path: `/api/series/${ownSeries}`, as: "member" },
    // The interactive reference and its files (which take no token), as the route table names
    // them.
    ...getCalls()
      .filter((url) => url.startsWith("/api/docs"))
      .map((url): Ask => ({ path: url, as: "visitor" })),
  ];

  // One request at a time, so each count is that request's own.
  const measure = async () => {
    // What is read once per content version (the site's settings) or once per server (the
    // unsubscribe link's key, whose cache the site's build holds a copy of) is read now, not by
    // whichever request comes first.
    const warmUp = await ask("page", { path: `/unsubscribe/${unsubscribe}`, as: "visitor" });
    warmUps.push({ route: "page /unsubscribe/:userId/:token", ...warmUp });
    // A member's first view of a page after a change tries a shell for every member (decision
    // 021), which a draft is not: two reads more (its post, and the categories alongside), once
    // per content version, after which it is remembered as none.
    const draftPath = `/posts/details/${draft._id}`;
    const tried = await ask("page", { path: draftPath, as: "member" });
    warmUps.push({ route: "page /posts/details/:id", ...tried });
    const measured: Measured[] = [];
    for (const [kind, asks] of [
      ["page", pageAsks],
      ["call", callAsks],
    ] as const) {
      const patterns = kind === "page" ? pages : getCalls();
      for (const one of asks) {
        const { path: where, queries: ran } = await ask(kind, one);
        const route = `${kind === "page" ? "page" : "GET"} ${routeOf(patterns, where)}`;
        measured.push({ route, path: where, queries: ran });
      }
    }
    return measured;
  };
  small = await measure();

  for (const person of await addPeople(7)) await arrive(person);
  for (let i = 0; i < 4; i += 1) {
    // Into the author's series too: its pages read as many parts in the same queries.
    const series = authorSeries;
    await addPost(api, author, { title: `More ${String(i)}`, category: "Travel", series });
  }
  large = await measure();

  for (const [route, { path: pattern }] of Object.entries(NOT_COUNTED)) {
    const kind = route.startsWith("page ") ? "page" : "call";
    const answer = await request(kind, pattern.replace(":userId/:token", unsubscribe), "visitor");
    excluded.push({ route, status: answer.status, queries: answer.queries });
  }
});

/** Paths as asked: the verification link is a new one each time. */
const countsOf = (measured: Measured[]) =>
  measured.map(({ route, path: where, queries: ran }) => [
    where.includes("/verify/") ? route : where,
    ran.length,
  ]);

describe("queries per page and call", () => {
  it("asks every GET page and call the route tables list, but the few excluded", () => {
    const asked = new Set(large.map((one) => one.route));
    const missing = everyRoute().filter((route) => !asked.has(route) && !(route in NOT_COUNTED));
    expect(missing, "GET routes no test counts: ask for them below").toEqual([]);
    // Every exclusion names a route that still is, and is not counted besides.
    for (const route of Object.keys(NOT_COUNTED)) {
      expect(everyRoute(), route).toContain(route);
      expect(asked.has(route), `${route} is counted: take it off NOT_COUNTED`).toBe(false);
    }
    // And still answers as said, without one query.
    const answers = excluded.map(({ route, status, queries: ran }) => ({
      route,
      status,
      queries: ran.length,
    }));
    const said = Object.entries(NOT_COUNTED).map(([route, { status }]) => ({
      route,
      status,
      queries: 0,
    }));
    expect(answers, "an exclusion that is a page now: count it").toEqual(said);
  });

  it("stay the same as posts, comments, likes, users and the rest grow", () => {
    // An ask answered without a query (a kept answer) would leave its queries unchecked. Only
    // these answer so: the API reference and its files read nothing, and the site settings are
    // read once per content version, by the warm-up (whose queries are checked below).
    const withoutDatabase = /^\/api\/(?:settings$|openapi\.json$|docs(?:\/|$))/;
    const unread = [...small, ...large].filter(
      (one) => one.queries.length === 0 && !withoutDatabase.test(one.path),
    );
    expect(unread.map((one) => one.path)).toEqual([]);
    expect(countsOf(large)).toEqual(countsOf(small));
    const tooMany = large.filter((one) => one.queries.length > MOST_QUERIES);
    expect(tooMany.map((one) => `${one.path}: ${String(one.queries.length)}`)).toEqual([]);
  });

  it("read every table through an index, never a whole table", () => {
    const sqlite = new SQLite(path.join(server.dataDir, "blog.db"), { readonly: true });
    try {
      // Searches rank with search_rank, as the server's own connections do.
      expect(loadSearchRank(sqlite).rank).toBe("search_rank");
      const firstAsker = new Map<string, string>();
      for (const { path: where, queries: ran } of [...warmUps, ...small, ...large]) {
        for (const sql of ran) if (!firstAsker.has(sql)) firstAsker.set(sql, where);
      }
      const wholeReads: string[] = [];
      for (const [sql, where] of firstAsker) {
        const parameters = Array.from(sql.matchAll(/\?/g), () => null);
        const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as {
          detail: string;
        }[];
        // "SCAN t" alone reads every row of t; "SCAN t USING INDEX" walks an index in order.
        // The categories are read whole: the menu lists them all, and they are few. So are the
        // webhooks (at most 50, decision 025): their page lists them all. And the static pages
        // (decision 032): a site has a handful, and their list names them all.
        // A search's candidates are the (at most 1,000) matches it has just read from its index,
        // and the page of them it shows (at most 6).
        const wholeTables = plan
          .map((step) => step.detail)
          .filter((step) =>
            /^SCAN (?!categories\b|webhooks\b|pages\b|candidates\b|shown\b)\w+$/.test(step),
          );
        if (wholeTables.length > 0) wholeReads.push(`${where}: ${wholeTables.join(", ")}: ${sql}`);
      }
      expect(wholeReads).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});
