import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openReadWorker, ReadWorkerGone } from "../../db/read-worker.js";
import { loadSearchRank, SEARCH_RANK_EXTENSION } from "../../db/search-rank.js";
import { SQLite } from "../../db/sqlite-driver.js";

// SQLite's search_rank (native/search-rank.c, decision 015), as npm ci builds it, on a real FTS5
// table shaped like post_search: title, body, category, author.

let dataDir: string;
let file: string;
let db: BetterSqlite3.Database;
let loaded: ReturnType<typeof loadSearchRank>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-search-rank-"));
  file = path.join(dataDir, "rank.db");
  db = new SQLite(file);
  db.pragma("journal_mode = WAL");
  loaded = loadSearchRank(db);
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(
    title, body, category, author, tokenize = 'porter unicode61', content = '')`);
  const insert = db.prepare(
    "INSERT INTO docs (rowid, title, body, category, author) VALUES (?, ?, ?, ?, ?)",
  );
  insert.run(1, "Bread", "Bake the loaf.", "Kitchen", "ada");
  insert.run(2, "Loaf", "Nothing else here.", "Kitchen", "ada");
  insert.run(3, "Bread", "A loaf, a loaf and a loaf.", "Kitchen", "ada");
  insert.run(4, "Garden", "A loaf of bread in the garden.", "Loaf", "ada");
  insert.run(5, "Garden", "Tomatoes.", "Outdoors", "loaf");
});

afterAll(async () => {
  db.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The rows that match, with their rank, best first. */
const ranked = (match: string, weights = "10.0, 1.0, 4.0, 4.0") =>
  db
    .prepare<[string], { id: number; score: number }>(
      `SELECT rowid AS id, search_rank(docs, ${weights}) AS score FROM docs
       WHERE docs MATCH ? ORDER BY score DESC, rowid DESC`,
    )
    .all(match);

describe("loading search_rank", () => {
  it("leaves it out when told to, and says so", () => {
    const other = new SQLite(":memory:");
    expect(loadSearchRank(other, null)).toEqual({
      rank: "bm25",
      why: "search_rank was left out",
    });
    other.close();
  });

  it("ranks with bm25 when the extension is not built, naming the file", () => {
    const other = new SQLite(":memory:");
    const missing = path.join(dataDir, "missing.so");
    expect(loadSearchRank(other, missing)).toEqual({
      rank: "bm25",
      why: `${missing} is not built (npm ci builds it where it finds a C compiler)`,
    });
    other.close();
  });

  it("ranks with bm25 when the file is not an extension, with SQLite's reason", async () => {
    const other = new SQLite(":memory:");
    const bogus = path.join(dataDir, "bogus.so");
    await writeFile(bogus, "not a shared library");
    const ranking = loadSearchRank(other, bogus);
    expect(ranking.rank).toBe("bm25");
    expect(ranking.rank === "bm25" && ranking.why).toContain("bogus.so");
    other.close();
  });

  it("loads the extension npm ci built", () => {
    expect(loaded).toEqual({ rank: "search_rank", extension: SEARCH_RANK_EXTENSION });
  });
});

describe("search_rank", () => {
  it("weighs each column by its argument: a title above the category and author, the body last", () => {
    expect(ranked('"loaf"').map((row) => row.id)).toEqual([2, 4, 5, 3, 1]);
    // Weighted otherwise, ranked otherwise: the body first.
    expect(ranked('"loaf"', "1.0, 10.0, 1.0, 1.0")[0]?.id).toBe(3);
  });

  it("counts more occurrences for more, each less than the one before (k1 = 1.2)", () => {
    const byId = new Map(ranked('"loaf"').map((row) => [row.id, row.score]));
    const once = 2.2 / 2.2;
    const thrice = (3 * 2.2) / 4.2;
    expect(byId.get(1)).toBeCloseTo(once, 10);
    expect(byId.get(3)).toBeCloseTo(thrice, 10);
    expect(byId.get(2)).toBeCloseTo(10 * once, 10);
    // Body once, category once: 1 + 4.
    expect(byId.get(4)).toBeCloseTo(once + 4 * once, 10);
  });

  it("adds up the searched words and phrases; left-out ones add nothing", () => {
    const both = ranked('"bread" AND "loaf"');
    expect(both.map((row) => row.id)).toEqual([3, 1, 4]);
    expect(both[1]?.score).toBeCloseTo(10 + 1, 10);
    const phrase = ranked('"loaf of bread"');
    expect(phrase).toEqual([{ id: 4, score: 1 }]);
    const without = ranked('"loaf" NOT "garden"');
    expect(without.map((row) => row.id)).toEqual([2, 3, 1]);
    expect(without.find((row) => row.id === 1)?.score).toBeCloseTo(1, 10);
  });

  it("takes columns without a weight as 1, and refuses more weights than columns", () => {
    expect(ranked('"tomatoes"', "10.0")).toEqual([{ id: 5, score: 1 }]);
    expect(() => ranked('"loaf"', "1, 1, 1, 1, 1")).toThrow(
      "search_rank: more weights than columns",
    );
  });

  it("is loaded into the read worker, which fails to start without it", async () => {
    const worker = openReadWorker(file, SEARCH_RANK_EXTENSION);
    try {
      await expect(
        worker.all(
          "SELECT rowid AS id, search_rank(docs) AS score FROM docs WHERE docs MATCH ? ORDER BY rowid",
          ['"tomatoes"'],
        ),
      ).resolves.toEqual([{ id: 5, score: 1 }]);
    } finally {
      await worker.close();
    }
    const broken = openReadWorker(file, path.join(dataDir, "missing.so"));
    await expect(broken.all("SELECT 1 AS n", [])).rejects.toBeInstanceOf(ReadWorkerGone);
  });
});
