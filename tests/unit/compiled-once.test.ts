import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { compiledOnce } from "../../db/compiled-once.js";
import { openDatabase, type DatabaseHandle } from "../../db/connect.js";
import type { Database } from "../../db/schema.js";
import { freshPostgres } from "../support/test-server.js";

// Reads compiled once per shape, on the database the suite runs on (PostgreSQL when DATABASE_URL
// is set): a query that returns the values it binds shows what each call was bound to.

let dataDir: string;
let postgres: Awaited<ReturnType<typeof freshPostgres>> | undefined;
let database: DatabaseHandle;
let queries: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-compiled-once-"));
  postgres = process.env.DATABASE_URL ? await freshPostgres(process.env.DATABASE_URL) : undefined;
  database = openDatabase({
    dataDir,
    databaseUrl: postgres?.url,
    onQuery: (sql) => {
      queries.push(sql);
    },
  });
});

afterAll(async () => {
  await database.close();
  await postgres?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  queries = [];
});

/** The values given, as columns v0, v1...; `own` adds a value the caller does not give. */
const echo = (values: readonly string[], own?: string) => () =>
  database.db.selectNoFrom((eb) => [
    ...values.map((value, index) => eb.val(value).as(`v${String(index)}`)),
    ...(own === undefined ? [] : [eb.val(own).as("own")]),
  ]);

describe("compiledOnce", () => {
  it("refuses a builder that binds a parameter of its own, at its first compile, running nothing", async () => {
    const read = compiledOnce<Database>();
    await expect(
      read(database.db, { parameters: ["a"] }, echo(["a"], "published")),
    ).rejects.toThrow("the parameters given must be the query's, in order");
    expect(queries).toEqual([]);
  });

  it("refuses parameters given in another order than the query binds them", async () => {
    const read = compiledOnce<Database>();
    await expect(read(database.db, { parameters: ["b", "a"] }, echo(["a", "b"]))).rejects.toThrow(
      "the parameters given must be the query's, in order",
    );
    expect(queries).toEqual([]);
  });

  it("refuses a call whose count of parameters differs from its shape's", async () => {
    const read = compiledOnce<Database>();
    await read(database.db, { parameters: ["a"] }, echo(["a"]));
    await expect(read(database.db, { parameters: ["a", "b"] }, echo(["a", "b"]))).rejects.toThrow(
      "another count of parameters for the same shape",
    );
  });

  it("builds each shape once per database and runs it with each call's parameters", async () => {
    const read = compiledOnce<Database>();
    let built = 0;
    const counted = (values: string[]) => () => {
      built += 1;
      return echo(values)();
    };
    const run = (values: string[]) =>
      read(database.db, { shape: String(values.length), parameters: values }, counted(values));
    expect(await run(["a"])).toEqual([{ v0: "a" }]);
    expect(await run(["b"])).toEqual([{ v0: "b" }]);
    expect(await run(["c", "d"])).toEqual([{ v0: "c", v1: "d" }]);
    expect(await run(["e", "f"])).toEqual([{ v0: "e", v1: "f" }]);
    expect(built).toBe(2);

    // Another database (here another connection) compiles for itself.
    const other = openDatabase({
      dataDir: path.join(dataDir, "other"),
      databaseUrl: postgres?.url,
    });
    try {
      const rows = await read(other.db, { shape: "1", parameters: ["g"] }, counted(["g"]));
      expect(rows).toEqual([{ v0: "g" }]);
      expect(built).toBe(3);
    } finally {
      await other.close();
    }
  });

  it("drops U+0000 from the values it binds, as built queries do", async () => {
    const read = compiledOnce<Database>();
    const run = (value: string) => read(database.db, { parameters: [value] }, echo([value]));
    expect(await run("a\u0000b")).toEqual([{ v0: "ab" }]);
    expect(await run("c\u0000d")).toEqual([{ v0: "cd" }]);
  });
});
