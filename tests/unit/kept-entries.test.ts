import { describe, expect, it } from "vitest";
import { releaseFreeMemory, RELEASE_MEMORY_EXTENSION } from "../../db/release-memory.js";
import { SQLite } from "../../db/sqlite-driver.js";
import { KEPT_IDLE_MS, KeptEntries } from "../../server/web/kept-entries.js";

// The bookkeeping every kept render and answer shares (issue 45, finding 8): a byte budget, least
// recently used out first, and what nobody asked for in a minute let go by the sweep.

const keptOf = (maxBytes = 100) =>
  new KeptEntries<string>({ maxBytes, sizeOf: (_, value) => value.length });

describe("KeptEntries", () => {
  it("keeps nothing larger than a quarter of its budget, and drops what was there", () => {
    const kept = keptOf();
    kept.keep("a", "x".repeat(20));
    expect(kept.keep("a", "x".repeat(26))).toBe(false);
    expect(kept.peek("a")).toBeUndefined();
    expect(kept.size).toEqual({ entries: 0, bytes: 0 });
  });

  it("pushes out the least recently used beyond its budget", () => {
    const kept = keptOf();
    for (const key of ["a", "b", "c", "d"]) kept.keep(key, "x".repeat(25));
    kept.use("a");
    kept.keep("e", "x".repeat(25));
    expect(kept.peek("b")).toBeUndefined();
    expect(kept.peek("a")).toBeDefined();
    expect(kept.size).toEqual({ entries: 4, bytes: 100 });
  });

  it("counts what grows an entry it holds, and nothing for one it no longer holds", () => {
    const kept = keptOf();
    kept.keep("a", "old");
    kept.grow("a", "other", 50);
    expect(kept.size.bytes).toBe(3);
    kept.grow("a", "old", 50);
    expect(kept.size.bytes).toBe(53);
  });

  it("lets go what nobody used for a minute, and only that", () => {
    const kept = keptOf();
    const start = 1_000_000;
    kept.keep("read once", "x".repeat(10), start);
    kept.keep("read again", "y".repeat(10), start);
    kept.use("read again", start + KEPT_IDLE_MS);
    expect(kept.sweep(start + KEPT_IDLE_MS)).toBe(0);
    expect(kept.sweep(start + KEPT_IDLE_MS + 1)).toBe(10);
    expect(kept.peek("read once")).toBeUndefined();
    expect(kept.peek("read again")).toBe("y".repeat(10));
  });
});

// Built wherever npm ci finds a C compiler (CI, this machine); glibc's Linux is where it acts.
describe.runIf(process.platform === "linux")(
  "release_free_memory (native/release-memory.c)",
  () => {
    it("gives the memory glibc holds free back to the system", () => {
      const connection = new SQLite(":memory:");
      connection.loadExtension(RELEASE_MEMORY_EXTENSION);
      // ~20 MB of a database's pages, malloc'd a page at a time and freed with it: glibc holds them.
      const scratch = new SQLite(":memory:");
      scratch.exec(`create table filler(bytes);
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
      insert into filler select randomblob(1000) from n`);
      scratch.close();
      // malloc_trim's answer: 1 when it gave memory back.
      expect(connection.prepare("select release_free_memory()").pluck().get()).toBe(1);
      expect(releaseFreeMemory()).toBe(true);
    });
  },
);
