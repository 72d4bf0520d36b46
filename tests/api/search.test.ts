import { beforeAll, describe, expect, it } from "vitest";
import { publishDuePosts } from "../../core/posts/scheduled-publishing.js";
import { newId } from "../../core/shared/ids.js";
import { migrateTo, migrateToLatest } from "../../db/connect.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client } from "../support/http.js";
import {
  addCategory,
  addPost,
  expectPostSummaryShape,
  postRows,
  type PostSummary,
} from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";
import { startTestServer } from "../support/test-server.js";

/**
 * Full-text search (DESIGN.md 9, "Reading"; decision 015). Run on SQLite and, with DATABASE_URL,
 * on PostgreSQL: every expectation names the same posts for both engines.
 */
const { server, api, admin } = await openTestSite({});

let writer: TestUser;
let cook: TestUser;

interface Segment {
  text: string;
  match: boolean;
}
type Found = PostSummary & { snippet: Segment[] };
interface Results {
  total: number;
  posts: Found[];
}
interface ErrorReply {
  message: string;
  errors?: Record<string, string>;
}

/** The fixed posts below, by name. */
const posts: Record<string, string> = {};

const search = (q: string | undefined, pageNumber?: number | string) => {
  const query = new URLSearchParams();
  if (q !== undefined) query.set("q", q);
  if (pageNumber !== undefined) query.set("pageNumber", String(pageNumber));
  return api.get<Results & ErrorReply>(`/api/search?${query.toString()}`);
};

/** The names of the fixed posts a search finds, in its order. */
async function found(q: string) {
  const reply = await search(q);
  expect(reply.status, reply.text).toBe(200);
  const names = new Map(Object.entries(posts).map(([name, id]) => [id, name]));
  return reply.body.posts.map((post) => names.get(post._id) ?? post._id);
}

/** The same, as a set: for searches whose ranking ties. */
const foundSet = async (q: string) => (await found(q)).sort();

beforeAll(async () => {
  writer = await buildUser(server, api, { username: "Wilhelmina" });
  cook = await buildUser(server, api, { username: "Ottoline" });
  await addCategory(api, admin, "Outdoors");
  await addCategory(api, admin, "Kitchen");
  const fixtures: [string, TestUser, Parameters<typeof addPost>[2]][] = [
    [
      "tomatoes",
      writer,
      {
        title: "Growing tomatoes in small gardens",
        category: "Outdoors",
        description: "Tomato plants need **sunlight**. Water them every morning.",
      },
    ],
    [
      "weekend",
      writer,
      {
        title: "Weekend notes",
        category: "Outdoors",
        description: "I spent the weekend gardening with friends, and the tomatoes were ripe.",
      },
    ],
    [
      "sourdough",
      cook,
      {
        title: "Sourdough basics",
        category: "Kitchen",
        description: "A starter, flour and water make the loaf. Knead gently.",
      },
    ],
    [
      "fox",
      cook,
      {
        title: "Quick breakfast",
        category: "Kitchen",
        description: "The quick brown fox jumps over the lazy dog every morning.",
      },
    ],
    [
      "animals",
      writer,
      {
        title: "Sleepy animals",
        category: "Outdoors",
        description: "Brown foxes are quick. The dog is lazy.",
      },
    ],
    [
      "draft",
      writer,
      {
        title: "Secret tomatoes",
        category: "Outdoors",
        description: "Unpublished marmalade.",
        status: "draft",
      },
    ],
  ];
  for (const [name, author, input] of fixtures) {
    posts[name] = (await addPost(api, author, input))._id;
  }
});

describe("GET /api/search: bad input", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["blank", "   \t  "],
  ])("refuses %s search text with 400", async (_name, q) => {
    const reply = await search(q);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "Search text is required",
      errors: { q: "Search text is required" },
    });
  });

  it("refuses search text over 200 characters with 400, and takes 200", async () => {
    const message = "Search text must be at most 200 characters long";
    const reply = await search("tomato ".repeat(29) + "x".repeat(3));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message, errors: { q: message } });
    expect((await search("x".repeat(199) + "y")).status).toBe(200);
    // Blanks around the text do not count.
    expect((await search(`  ${"x".repeat(200)}  `)).status).toBe(200);
  });

  it.each([
    "-",
    '""',
    '"',
    "-tomato",
    '-"lazy dog"',
    "- -",
    "*",
    "^",
    "()",
    "\\ % _ ;",
    "the",
    "AND OR NOT",
  ])("refuses %j, which has no word to look for, with 400", async (q) => {
    const message = "Search text must include a word to look for";
    const reply = await search(q);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message, errors: { q: message } });
  });

  it.each(["0", "-1", "1.5", "two"])("refuses pageNumber %j with 400", async (pageNumber) => {
    const reply = await search("tomato", pageNumber);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe("pageNumber must be a whole number from 1");
  });

  it.each([
    // NEAR is a word here: no post has it.
    ["NEAR(tomato", []],
    ["NEAR(tomato)", []],
    ['tomato"', ["tomatoes", "weekend"]],
    ['"tomato', ["tomatoes", "weekend"]],
    ["tomato*", ["tomatoes", "weekend"]],
    ["^tomato", ["tomatoes", "weekend"]],
    ["title:tomato", []],
    ["tomato OR weekend", ["weekend"]],
    ["tomato NOT weekend", ["weekend"]],
    ["tomato + {weekend}", ["weekend"]],
    ["tomato & !weekend | <-> :*", ["weekend"]],
    ["NEAR(", []],
    ["' OR 1=1 --", []],
    ["'); DROP TABLE posts; --", []],
  ])("reads the syntax in %j as words, never as the database's", async (q, names) => {
    const before = await postRows(server);
    expect(await foundSet(q)).toEqual([...names].sort());
    expect(await postRows(server)).toBe(before);
  });
});

describe("GET /api/search: rate limit", () => {
  it("answers 120 searches a minute per address, then 429", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const limitedApi = client(limited.url);
      const statuses: number[] = [];
      // Refused searches count too: the limit is on asking, whatever is asked. Each text is a
      // search of its own (the same text again may be answered as kept, decision 015).
      for (let i = 0; i < 120; i++) {
        statuses.push(
          (await limitedApi.get(`/api/search?q=${i % 2 ? "-" : `word${String(i)}`}`)).status,
        );
      }
      expect(new Set(statuses)).toEqual(new Set([200, 400]));
      const reply = await limitedApi.get<ErrorReply>("/api/search?q=word");
      expect(reply.status).toBe(429);
      expect(reply.body.message).toMatch(
        /^Too many requests, please try again in \d+ (seconds?|minutes?)$/,
      );
      // A search already kept costs nothing: it is answered from what was kept (decision 015).
      expect((await limitedApi.get("/api/search?q=word0")).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("GET /api/search: what it finds", () => {
  it("answers {total, posts}, each a post summary with a snippet", async () => {
    const reply = await search("weekend");
    expect(reply.status).toBe(200);
    expect(reply.body.total).toBe(1);
    const [post] = reply.body.posts;
    expect(Object.keys(reply.body).sort()).toEqual(["posts", "total"]);
    const { snippet, ...summary } = post as Found;
    expectPostSummaryShape(summary);
    expect(summary).toMatchObject({ _id: posts.weekend, title: "Weekend notes" });
    expect(summary.user.username).toBe("Wilhelmina");
    expect(snippet).toEqual([
      { text: "I spent the ", match: false },
      { text: "weekend", match: true },
      { text: " gardening with friends, and the tomatoes were ripe.", match: false },
    ]);
  });

  it("finds words by their stem: kneading finds knead, plants finds plant", async () => {
    expect(await found("kneading")).toEqual(["sourdough"]);
    expect(await found("planted")).toEqual(["tomatoes"]);
  });

  it("finds the last word typed by its beginning too, the words before it whole", async () => {
    expect(await found("sourd")).toEqual(["sourdough"]);
    expect(await found("basics sourd")).toEqual(["sourdough"]);
    expect(await found("sourd basics")).toEqual([]);
    expect(await foundSet("tom")).toEqual(["tomatoes", "weekend"]);
  });

  it("needs every word, in any order and field", async () => {
    expect(await foundSet("brown quick fox")).toEqual(["animals", "fox"]);
    expect(await found("tomato ripe")).toEqual(["weekend"]);
  });

  it('finds an "exact phrase", stop words inside it kept in their place', async () => {
    expect(await found('"quick brown fox"')).toEqual(["fox"]);
    expect(await found('"jumps over the lazy dog"')).toEqual(["fox"]);
    expect(await found('"dog is lazy"')).toEqual(["animals"]);
    expect(await found('"lazy dog"')).toEqual(["fox"]);
  });

  it("leaves out -words and -phrases", async () => {
    expect(await found("tomato -weekend")).toEqual(["tomatoes"]);
    expect(await found('quick -"lazy dog"')).toEqual(["animals"]);
    expect(await foundSet("morning -nothing")).toEqual(["fox", "tomatoes"]);
  });

  it("ranks a title match above a body match", async () => {
    expect(await found("garden")).toEqual(["tomatoes", "weekend"]);
    expect(await found("sleepy quick")).toEqual(["animals"]);
    expect(await found("breakfast")).toEqual(["fox"]);
    expect(await found("quick")).toEqual(["fox", "animals"]);
  });

  it("searches categories and author names", async () => {
    expect(await foundSet("kitchen")).toEqual(["fox", "sourdough"]);
    expect(await foundSet("ottoline")).toEqual(["fox", "sourdough"]);
    expect(await found("ottoline loaf")).toEqual(["sourdough"]);
  });

  it("never finds a draft", async () => {
    expect(await found("marmalade")).toEqual([]);
    expect(await foundSet("secret tomatoes")).toEqual([]);
  });

  it("marks the matched words in a snippet of plain text around the best match", async () => {
    const filler = "Nothing to see in this sentence at all. ".repeat(20);
    const post = await addPost(api, writer, {
      title: "A long read",
      category: "Outdoors",
      description: `${filler}\n\nAt last the **zeppelins** appear over the hills.\n\n${filler}`,
    });
    const reply = await search("zeppelin hills");
    expect(reply.status).toBe(200);
    const [result] = reply.body.posts;
    expect(result?._id).toBe(post._id);
    const snippet = result?.snippet ?? [];
    const text = snippet.map((segment) => segment.text).join("");
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(203);
    expect(text).not.toContain("*");
    expect(snippet.filter((segment) => segment.match).map((segment) => segment.text)).toEqual([
      "zeppelins",
      "hills",
    ]);
    await api.delete(`/api/posts/${post._id}`, { token: writer.token });
  });

  it("shows the start of the text, unmarked, when only the title matched", async () => {
    const reply = await search("breakfast");
    expect(reply.body.posts[0]?.snippet).toEqual([
      { text: "The quick brown fox jumps over the lazy dog every morning.", match: false },
    ]);
  });
});

describe("GET /api/search: pages", () => {
  it("pages through every match, six at a time, each once", async () => {
    const made: string[] = [];
    for (let i = 0; i < 8; i++) {
      const post = await addPost(api, cook, {
        title: `Quokka sighting ${String(i)}`,
        category: "Outdoors",
        description: `Quokka number ${String(i)} smiled${" quokka".repeat(i)}.`,
      });
      made.push(post._id);
    }
    const first = await search("quokka");
    const second = await search("quokka", 2);
    const third = await search("quokka", 3);
    expect([first.body.total, second.body.total, third.body.total]).toEqual([8, 8, 8]);
    expect(first.body.posts).toHaveLength(6);
    expect(second.body.posts).toHaveLength(2);
    expect(third.body.posts).toEqual([]);
    const ids = [...first.body.posts, ...second.body.posts].map((post) => post._id);
    expect(new Set(ids).size).toBe(8);
    expect([...ids].sort()).toEqual([...made].sort());
    // The post that says it most often comes first on both engines.
    expect(ids[0]).toBe(made[7]);
    for (const id of made) await api.delete(`/api/posts/${id}`, { token: cook.token });
    expect((await search("quokka")).body).toEqual({ total: 0, posts: [] });
  });
});

describe("GET /api/search: the index follows every write", () => {
  it("follows an edit of the title, body and category", async () => {
    const post = await addPost(api, writer, {
      title: "Walrus facts",
      category: "Outdoors",
      description: "Tusks and whiskers.",
    });
    expect(await found("walrus")).toEqual([post._id]);
    const reply = await api.put(
      `/api/posts/${post._id}`,
      { title: "Narwhal facts", description: "Horns and flippers.", category: "Kitchen" },
      { token: writer.token },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(await found("walrus")).toEqual([]);
    expect(await found("whiskers")).toEqual([]);
    expect(await found("narwhal flippers")).toEqual([post._id]);
    expect(await found("narwhal kitchen")).toEqual([post._id]);
    await api.delete(`/api/posts/${post._id}`, { token: writer.token });
    expect(await found("narwhal")).toEqual([]);
  });

  it("follows a post back to draft and published again", async () => {
    const post = await addPost(api, writer, { title: "Pelican diary", category: "Outdoors" });
    const state = (status: string) =>
      api.put(`/api/posts/${post._id}`, { ...editOf(post), status }, { token: writer.token });
    expect((await state("draft")).status).toBe(200);
    expect(await found("pelican")).toEqual([]);
    expect((await state("published")).status).toBe(200);
    expect(await found("pelican")).toEqual([post._id]);
    await api.delete(`/api/posts/${post._id}`, { token: writer.token });
  });

  it("finds a scheduled post once it goes live, not before", async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    const post = await addPost(api, writer, {
      title: "Flamingo season",
      category: "Outdoors",
      status: "scheduled",
      publishAt: soon,
    });
    expect(await found("flamingo")).toEqual([]);
    await server.app.deps.db
      .updateTable("posts")
      .set({ publish_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", post._id)
      .execute();
    expect(await found("flamingo")).toEqual([]);
    await publishDuePosts(server.app.deps);
    expect(await found("flamingo")).toEqual([post._id]);
    await api.delete(`/api/posts/${post._id}`, { token: writer.token });
  });

  it("follows an author's new name", async () => {
    const renamed = await buildUser(server, api, { username: "Bartholomew" });
    const post = await addPost(api, renamed, { title: "Heron notes", category: "Outdoors" });
    expect(await found("bartholomew")).toEqual([post._id]);
    const reply = await api.put(
      `/api/users/profile/${renamed.id}`,
      { username: "Cornelius", email: renamed.email, bio: "Birds." },
      { token: renamed.token },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(await found("bartholomew")).toEqual([]);
    expect(await found("cornelius heron")).toEqual([post._id]);
  });

  it("forgets the posts of a deleted account", async () => {
    const leaving = await buildUser(server, api);
    const post = await addPost(api, leaving, { title: "Albatross log", category: "Outdoors" });
    expect(await found("albatross")).toEqual([post._id]);
    const reply = await api.delete(`/api/users/profile/${leaving.id}`, { token: leaving.token });
    expect(reply.status, reply.text).toBe(200);
    expect(await found("albatross")).toEqual([]);
  });
});

/** The body of an edit that keeps a post as it is. */
const editOf = (post: PostSummary) => ({
  title: post.title,
  description: post.description,
  category: post.category,
});

describe("posts written before search (migration 008)", () => {
  it("are found after it, drafts still not", async () => {
    const own = await startTestServer();
    try {
      const ownApi = client(own.url);
      const author = await buildUser(own, ownApi, { username: "Ignatius" });
      const { db } = own.app.deps;
      await migrateTo(db, "007-conversations");
      const row = (title: string, description: string, status: string) => ({
        id: newId(),
        user_id: author.id,
        title,
        description,
        category: "Archive",
        image_key: "legacy/none.webp",
        body_format: "markdown",
        html: "",
        excerpt: "",
        reading_minutes: 1,
        status,
        publish_at: null,
        published_at: status === "published" ? "2025-01-01T00:00:00.000Z" : null,
        created_at: "2025-01-01T00:00:00.000Z",
        updated_at: "2025-01-01T00:00:00.000Z",
      });
      const old = row("Old harbour", "The **lighthouse** keeper wrote `code` here.", "published");
      const draft = row("Old draft", "A lighthouse draft.", "draft");
      // Rows of the table as it was: without the column 008 adds.
      for (const values of [old, draft]) {
        await db
          .insertInto("posts")
          .values(values as never)
          .execute();
      }
      await migrateToLatest(db);
      const reply = await ownApi.get<Results>("/api/search?q=lighthouse");
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.posts.map((post) => post._id)).toEqual([old.id]);
      expect(reply.body.posts[0]?.snippet).toEqual([
        { text: "The ", match: false },
        { text: "lighthouse", match: true },
        { text: " keeper wrote code here.", match: false },
      ]);
      const byAuthor = await ownApi.get<Results>("/api/search?q=ignatius%20archive%20harbour");
      expect(byAuthor.body.total).toBe(1);
      // And down again, to 007 and back, for the tests of earlier migrations.
      await migrateTo(db, "007-conversations");
      await migrateToLatest(db);
      expect((await ownApi.get<Results>("/api/search?q=lighthouse")).body.total).toBe(1);
      // 014 makes the index again (with more prefix lengths) from the posts, both ways. (The
      // server reads columns of later migrations, so it is asked again once they are back.)
      await migrateTo(db, "013-posts-created-at");
      await migrateToLatest(db);
      expect((await ownApi.get<Results>("/api/search?q=harbo")).body.total).toBe(1);
      expect((await ownApi.get<Results>("/api/search?q=lighthous")).body.total).toBe(1);
      expect((await ownApi.get<Results>("/api/search?q=draft")).body.total).toBe(0);
    } finally {
      await own.close();
    }
  });
});

describe.skipIf(process.env.DATABASE_URL !== undefined)(
  "GET /api/search: off the main thread",
  () => {
    it("searches on the main connection if the read worker is gone, finding the same", async () => {
      const { offThread } = server.app.deps;
      expect(offThread).toBeDefined();
      // Two texts that find the same posts (a search asked again would be a kept answer).
      const onWorker = await foundSet("tomatoes");
      expect(onWorker).toEqual(["tomatoes", "weekend"]);
      await offThread?.close();
      expect(await foundSet("tomato")).toEqual(onWorker);
      expect(await foundSet("tomatoe")).toEqual(onWorker);
      const warnings = server.logs.filter((line) => line.includes("the read worker is gone"));
      expect(warnings).toHaveLength(1);
    });
  },
);

describe.skipIf(process.env.DATABASE_URL !== undefined)(
  "GET /api/search: ranked by bm25 where search_rank is not built",
  () => {
    it("finds and ranks as with it, and says so once when it starts", async () => {
      const own = await startTestServer({}, { searchRankExtension: null });
      try {
        const ownApi = client(own.url);
        const author = await buildUser(own, ownApi, { username: "Perpetua" });
        const ownAdmin = await signInAdmin(own, ownApi);
        await addCategory(ownApi, ownAdmin, "Kitchen");
        const made: Record<string, string> = {};
        for (const [name, title, description] of [
          ["fox", "Quick breakfast", "The quick brown fox jumps over the lazy dog."],
          ["animals", "Sleepy animals", "Brown foxes are quick. The dog is lazy."],
          ["often", "Notes", "Quick, quick, quick: the quickest of notes."],
        ] as const) {
          made[name] = (
            await addPost(ownApi, author, { title, description, category: "Kitchen" })
          )._id;
        }
        const reply = await ownApi.get<Results>("/api/search?q=quick");
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.posts.map((post) => post._id)).toEqual([
          made.fox,
          made.often,
          made.animals,
        ]);
        expect(own.logs.filter((line) => line.includes("slower bm25"))).toHaveLength(1);
        expect(server.logs.filter((line) => line.includes("slower bm25"))).toEqual([]);
      } finally {
        await own.close();
      }
    });
  },
);
