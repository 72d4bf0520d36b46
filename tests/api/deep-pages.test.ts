import { CompiledQuery, sql, type Insertable } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_SIZE } from "../../contract/limits.js";
import { listPosts } from "../../core/posts/posts-service.js";
import type { Database } from "../../db/schema.js";
import { client, type Client } from "../support/http.js";
import type { PostSummary } from "../support/post-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Issue 48: a deep page of a list (`?pageNumber=400`) costs what page 1 costs. Its ids are read in
// the list's order from an index that holds the order and the filter, the skipped rows never
// leaving it, and only the page's rows are read whole, with their author and counts. On SQLite
// that is a covering index; on PostgreSQL an index-only scan, which skips the table only for pages
// the visibility map marks all-visible. VACUUM sets that map (autovacuum, in production, after a
// bulk insert as after edits); in a database filled in bulk and never vacuumed (autovacuum off)
// PostgreSQL read and sorted the whole table for every deep page instead (53 a second against 374
// for page 1, at 10,000 posts).

const PUBLISHED = 3000;
const DRAFTS = 300;
const CATEGORIES = ["Alpha", "Beta", "Gamma"];
const TAG = "deep";
const LAST_PAGE = PUBLISHED / PAGE_SIZE;

let server: TestServer;
let api: Client;
/** The SQL of every statement run outside the server's jobs, as it ran. */
const statements: string[] = [];

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      onQuery: (text, background) => {
        if (!background) statements.push(text);
      },
    },
  );
  api = client(server.url);
  const { db } = server.app.deps;
  const author = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const posts: Insertable<Database["posts"]>[] = [];
  for (let i = 0; i < PUBLISHED + DRAFTS; i += 1) {
    // Three posts to a timestamp, so pages end in the middle of ties (ordered by id there).
    const at = new Date(start + Math.floor(i / 3) * 60_000).toISOString();
    const draft = i % 11 === 0;
    const tagged = i % 4 === 0;
    posts.push({
      id: crypto.randomUUID(),
      user_id: author.id,
      title: `Post ${String(i)}`,
      description: `The body of post ${String(i)}. `.repeat(20),
      category: CATEGORIES[i % CATEGORIES.length] ?? "Alpha",
      image_key: "deep-pages.webp",
      image_alt: null,
      body_format: "plain",
      html: `<p>${`The body of post ${String(i)}. `.repeat(20)}</p>`,
      excerpt: `The body of post ${String(i)}.`,
      body_text: `The body of post ${String(i)}.`,
      reading_minutes: 1,
      status: draft ? "draft" : "published",
      publish_at: null,
      published_at: draft ? null : at,
      created_at: at,
      updated_at: at,
      tags: tagged ? TAG : "",
      meta_description: null,
      canonical_url: null,
    });
  }
  const rows = posts;
  expect(rows.filter((post) => post.status === "draft")).toHaveLength(DRAFTS);
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto("posts")
      .values(rows.slice(i, i + 200))
      .execute();
  }
  const tagged = rows
    .filter((post) => post.tags === TAG)
    .map((post) => ({ post_id: post.id, tag: TAG }));
  for (let i = 0; i < tagged.length; i += 500) {
    await db
      .insertInto("post_tags")
      .values(tagged.slice(i, i + 500))
      .execute();
  }
  // What autovacuum does on its own after a bulk insert in production: statistics for the planner,
  // and the visibility map an index-only scan reads instead of the table.
  if (server.config.databaseUrl) await sql`VACUUM ANALYZE`.execute(db);
}, 120_000);
afterAll(() => server.close());

const ids = (posts: PostSummary[]) => posts.map((post) => post._id);

describe("deep pages of a list", () => {
  it.each([
    ["every post", ""],
    ["a category", "&category=Beta"],
    ["a tag", `&tag=${TAG}`],
  ])("are the slices of the whole list of %s, in its order", async (_, filter) => {
    const whole = (await api.get<PostSummary[]>(`/api/posts?${filter.slice(1)}`)).body;
    expect(whole.length).toBeGreaterThan(10 * PAGE_SIZE);
    const last = Math.ceil(whole.length / PAGE_SIZE);
    for (const pageNumber of [1, 2, Math.floor(last / 2), last - 1, last, last + 1]) {
      const page = await api.get<PostSummary[]>(
        `/api/posts?pageNumber=${String(pageNumber)}${filter}`,
      );
      expect(page.status).toBe(200);
      const from = (pageNumber - 1) * PAGE_SIZE;
      expect(page.body, `page ${String(pageNumber)}`).toEqual(whole.slice(from, from + PAGE_SIZE));
    }
  });

  it("holds every published post once, newest first, ties by id", async () => {
    const whole = (await api.get<PostSummary[]>("/api/posts")).body;
    expect(whole).toHaveLength(PUBLISHED);
    expect(new Set(ids(whole)).size).toBe(PUBLISHED);
    const keys = whole.map((post) => `${post.publishedAt ?? ""} ${post._id}`);
    expect(keys).toEqual([...keys].sort().reverse());
  });

  it.each<[string, { category?: string }, number, string]>([
    ["every post", {}, LAST_PAGE - 100, "posts_status_published_at"],
    ["a category", { category: "Beta" }, 130, "posts_category_status_published_at"],
  ])(
    "read the ids of a deep page of %s from the index alone, never sorting the list",
    async (_, filter, pageNumber, index) => {
      const { db } = server.app.deps;
      statements.length = 0;
      const page = await listPosts(server.app.deps, filter, pageNumber);
      expect(page).toHaveLength(PAGE_SIZE);
      const [text, ...others] = statements.filter((one) => /\boffset\b/i.test(one));
      expect(others).toEqual([]);
      if (text === undefined) throw new Error("the page ran no statement with an offset");
      const offset = (pageNumber - 1) * PAGE_SIZE;
      const parameters = [
        "published",
        ...(filter.category ? [filter.category] : []),
        PAGE_SIZE,
        offset,
      ];

      if (!server.config.databaseUrl) {
        const plan = await db.executeQuery<{ id: number; parent: number; detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, parameters),
        );
        // The ids: the subquery searches the covering index, in its order, and nothing else (no
        // table, no temporary b-tree to sort them); only the page's rows are read whole.
        const subqueries = plan.rows.filter((step) => step.detail.startsWith("LIST SUBQUERY"));
        expect(subqueries).toHaveLength(1);
        const ofIds = plan.rows.filter((step) => step.parent === subqueries[0]?.id);
        expect(ofIds.map((step) => step.detail)).toEqual([
          `SEARCH posts USING COVERING INDEX ${index} (${filter.category ? "category=? AND " : ""}status=?)`,
        ]);
        expect(plan.rows.filter((step) => /^SCAN posts\b/.test(step.detail))).toEqual([]);
        return;
      }

      const explained = await db.executeQuery<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, parameters),
      );
      const plan = explained.rows[0]?.["QUERY PLAN"][0].Plan;
      if (!plan) throw new Error("no plan");
      // The page's ids: the one Limit of the statement, over nothing but the index walked backwards.
      const limits = nodesOf(plan).filter((node) => node["Node Type"] === "Limit");
      expect(limits).toHaveLength(1);
      const walk = limits[0]?.Plans ?? [];
      expect(
        walk.map((node) => [node["Node Type"], node["Index Name"], node["Scan Direction"]]),
      ).toEqual([["Index Only Scan", index, "Backward"]]);
      expect(walk[0]?.["Heap Fetches"]).toBe(0);
      expect(walk[0]?.["Actual Rows"]).toBe(offset + PAGE_SIZE);
      expect(
        nodesOf(plan)
          .filter((node) => node["Node Type"] === "Sort")
          .map((node) => node["Actual Rows"]),
      ).toEqual([PAGE_SIZE]);
    },
  );
});

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Scan Direction"?: string;
  "Heap Fetches"?: number;
  "Actual Rows"?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
