import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as tar from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../bench/seed.js";
import { createSession } from "../../core/auth/sessions.js";
import { storeImage } from "../../core/media/images.js";
import { createLocalStorage } from "../../core/media/storage.js";
import { MANIFEST_ENTRY, type Manifest } from "../../core/porting/archive.js";
import { tablesOf } from "../../core/porting/database.js";
import { CARRIED_TABLES, isEngineTable, SKIPPED_TABLES } from "../../core/porting/tables.js";
import { migrateToLatest, openDatabase, type DatabaseHandle } from "../../db/connect.js";
import { allFiles, allRows, runCli } from "../support/porting.js";
import { pngImage } from "../support/images.js";
import { startTestS3 } from "../support/s3.js";
import { freshPostgres } from "../support/test-server.js";

/** Each command is a process of its own that loads the sources: seconds each on a busy machine. */
const CLI_TIMEOUT = 120_000;

const POSTGRES = process.env.DATABASE_URL;

interface Site {
  dataDir: string;
  databaseUrl?: string | undefined;
  uploads: string;
  open(): DatabaseHandle;
  drop(): Promise<void>;
}

const scratch = await mkdtemp(path.join(os.tmpdir(), "blog-porting-"));
let counter = 0;

/** A new, empty site: SQLite in its own DATA_DIR, or a fresh PostgreSQL database with one. */
async function newSite(engine: "sqlite" | "postgres"): Promise<Site> {
  counter += 1;
  const dataDir = path.join(scratch, `site-${String(counter)}`);
  const postgres = engine === "postgres" && POSTGRES ? await freshPostgres(POSTGRES) : undefined;
  return {
    dataDir,
    databaseUrl: postgres?.url,
    uploads: path.join(dataDir, "uploads"),
    open: () => openDatabase({ databaseUrl: postgres?.url, dataDir }),
    drop: async () => {
      await postgres?.drop();
    },
  };
}

/** The engine the failure modes run against: PostgreSQL on the suite's PostgreSQL run. */
const targetEngine = POSTGRES ? "postgres" : "sqlite";

/**
 * A site with a row in every carried table, the awkward values each engine might store its own
 * way (nulls, flags, times, long and odd text), image files, and rows an archive leaves out.
 */
async function seedSite(site: Site) {
  const database = site.open();
  const { db } = database;
  try {
    await migrateToLatest(db);
    const storage = createLocalStorage(site.uploads, "/uploads");
    await seedDemo(db, storage, { users: 4, categories: 3, posts: 5, likes: 6, comments: 6 });
    const [author, other] = await db
      .selectFrom("users")
      .select("id")
      .orderBy("id")
      .limit(2)
      .execute();
    if (!author || !other) throw new Error("seed made no users");
    const photo = await storeImage(storage, await pngImage(500, 300), 7_000_000);
    const odd = "Ünïcödé 🎉 'single' \"double\" \\ back\nslash\ttab \u2028 end";
    await db
      .updateTable("users")
      .set({ photo_key: photo, bio: odd, is_admin: 1, suspended_at: "2026-01-02T03:04:05.678Z" })
      .where("id", "=", author.id)
      .execute();
    const post = await db
      .selectFrom("posts")
      .select(["id", "user_id"])
      .orderBy("id")
      .executeTakeFirstOrThrow();
    // A series (decision 032) of the post's writer's: the post in it at a place with a gap before
    // it, as reordering leaves them, and another post of theirs, if any, first.
    const seriesId = crypto.randomUUID();
    await db
      .insertInto("series")
      .values({
        id: seriesId,
        user_id: post.user_id,
        title: odd,
        description: odd,
        created_at: "2026-01-04T00:00:00.000Z",
        updated_at: "2026-01-05T00:00:00.000Z",
      })
      .execute();
    await db
      .updateTable("posts")
      .set({
        status: "scheduled",
        publish_at: "2030-05-06T07:08:09.000Z",
        description: "x".repeat(20_000),
        image_alt: odd,
        series_id: seriesId,
        series_position: 7,
      })
      .where("id", "=", post.id)
      .execute();
    await db
      .updateTable("posts")
      .set({ series_id: seriesId, series_position: 2 })
      .where("user_id", "=", post.user_id)
      .where("id", "!=", post.id)
      .execute();
    const bodyImage = await storeImage(storage, await pngImage(1600, 900), 7_000_000);
    await db
      .insertInto("body_images")
      .values([
        {
          image_key: bodyImage,
          uploader_id: author.id,
          post_id: post.id,
          width: 1200,
          height: 675,
          created_at: "2026-01-01T00:00:00.000Z",
          released_at: null,
        },
      ])
      .execute();
    // A static page (decision 032) with a slug it had, a revision, a draft's null time and an
    // image of its own.
    const pageId = crypto.randomUUID();
    await db
      .insertInto("pages")
      .values({
        id: pageId,
        slug: "about",
        author_id: author.id,
        title: odd,
        description: odd,
        html: `<p>${odd}</p>`,
        excerpt: odd,
        meta_description: null,
        status: "draft",
        published_at: null,
        created_at: "2026-01-02T00:00:00.000Z",
        updated_at: "2026-01-03T00:00:00.000Z",
      })
      .execute();
    await db
      .insertInto("page_slugs")
      .values({ slug: "about-us", page_id: pageId, created_at: "2026-01-03T00:00:00.000Z" })
      .execute();
    await db
      .insertInto("page_revisions")
      .values({
        id: crypto.randomUUID(),
        page_id: pageId,
        editor_id: author.id,
        title: "About us",
        description: "Before",
        created_at: "2026-01-03T00:00:00.000Z",
      })
      .execute();
    const pageImage = await storeImage(storage, await pngImage(800, 450), 7_000_000);
    await db
      .insertInto("body_images")
      .values({
        image_key: pageImage,
        uploader_id: author.id,
        post_id: null,
        page_id: pageId,
        width: 800,
        height: 450,
        created_at: "2026-01-02T00:00:00.000Z",
        released_at: null,
      })
      .execute();
    const comment = await db
      .selectFrom("comments")
      .select("id")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("comments")
      .values({
        id: crypto.randomUUID(),
        post_id: post.id,
        user_id: other.id,
        parent_id: comment.id,
        text: odd,
        created_at: "2026-02-03T04:05:06.007Z",
        updated_at: "2026-02-03T04:05:06.007Z",
      })
      .execute();
    await db
      .insertInto("audit_log")
      .values({
        id: crypto.randomUUID(),
        actor_id: author.id,
        actor_name: "ada",
        action: "user.suspend",
        target_kind: "user",
        target_id: other.id,
        target_summary: "alan",
        created_at: "2026-03-01T00:00:00.000Z",
      })
      .execute();
    await db
      .insertInto("reports")
      .values({
        id: crypto.randomUUID(),
        reporter_id: other.id,
        target_kind: "comment",
        target_id: comment.id,
        target_user_id: null,
        target_summary: odd,
        reason: "spam",
        note: "",
        status: "closed",
        decision: "dismiss",
        decided_by: author.id,
        decided_by_name: "ada",
        decided_at: "2026-03-02T00:00:00.000Z",
        created_at: "2026-03-01T12:00:00.000Z",
      })
      .execute();
    const logo = await storeImage(storage, await pngImage(400, 100), 7_000_000);
    await db
      .insertInto("site_settings")
      .values({
        id: "site",
        title: odd,
        welcome: "Welcome",
        contact_phone: "+1 555 0100",
        contact_email: "desk@example.com",
        logo_key: logo,
        updated_at: "2026-03-03T00:00:00.000Z",
      })
      .execute();
    // A person's choice (decision 017) moves with them.
    await db
      .insertInto("user_settings")
      .values({ user_id: other.id, email_notifications: 0, updated_at: "2026-03-04T00:00:00.000Z" })
      .execute();
    // A writer's counts (decision 026) move with the posts; the day's visitors and salt do not.
    await db
      .insertInto("post_views_daily")
      .values({ post_id: post.id, day: "2026-03-05", views: 12, visitors: 7 })
      .execute();
    await db
      .insertInto("author_views_daily")
      .values({ author_id: author.id, day: "2026-03-05", views: 12, visitors: 7 })
      .execute();
    await db
      .insertInto("site_views_daily")
      .values({ day: "2026-03-05", views: 15, visitors: 9 })
      .execute();
    await db
      .insertInto("post_referrers_daily")
      .values({ post_id: post.id, day: "2026-03-05", host: "news.example.org", views: 3 })
      .execute();
    await db
      .insertInto("stats_visitors")
      .values({ day: "2026-03-05", scope: post.id, visitor: "a-visitor-hash" })
      .execute();
    await db.insertInto("stats_salts").values({ day: "2026-03-05", salt: "a-salt" }).execute();
    // Left out of an archive on purpose (decision 019).
    await createSession(db, author.id, new Date());
    await db
      .insertInto("verification_tokens")
      .values({
        id: crypto.randomUUID(),
        user_id: other.id,
        kind: "password",
        token_hash: "h",
        new_email: null,
        created_at: "2026-03-01T00:00:00.000Z",
        expires_at: "2036-03-01T00:00:00.000Z",
      })
      .execute();
    return { rows: await allRows(db), files: await allFiles(site.uploads) };
  } finally {
    await database.close();
  }
}

async function snapshot(site: Site) {
  const database = site.open();
  try {
    return { rows: await allRows(database.db), files: await allFiles(site.uploads) };
  } finally {
    await database.close();
  }
}

/** The entries of an archive, in order. */
async function entriesOf(file: string) {
  const extract = tar.extract();
  const done = (async () => {
    const entries: { name: string; body: Buffer }[] = [];
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      entries.push({ name: entry.header.name, body: Buffer.concat(chunks) });
    }
    return entries;
  })();
  extract.end(await readFile(file));
  return done;
}

async function packed(entries: { name: string; body: Buffer }[]) {
  const pack = tar.pack();
  for (const { name, body } of entries) pack.entry({ name }, body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The archive with one entry changed and the manifest made to agree with it. */
async function rewritten(
  file: string,
  change: (entries: { name: string; body: Buffer }[], manifest: Manifest) => void,
) {
  const entries = await entriesOf(file);
  const last = entries.pop();
  if (last?.name !== MANIFEST_ENTRY) throw new Error("no manifest last");
  const manifest = JSON.parse(last.body.toString("utf8")) as Manifest;
  change(entries, manifest);
  const { createHash } = await import("node:crypto");
  for (const table of manifest.tables) {
    const entry = entries.find((candidate) => candidate.name === `tables/${table.name}.jsonl`);
    if (!entry) continue;
    table.bytes = entry.body.length;
    table.sha256 = createHash("sha256").update(entry.body).digest("hex");
    table.rows = entry.body.toString("utf8").split("\n").filter(Boolean).length;
  }
  entries.push({ name: MANIFEST_ENTRY, body: Buffer.from(JSON.stringify(manifest)) });
  const out = path.join(scratch, `rewritten-${String((counter += 1))}.tar`);
  await writeFile(out, await packed(entries));
  return out;
}

let source: Site;
let seeded: Awaited<ReturnType<typeof seedSite>>;
let archive: string;

beforeAll(async () => {
  source = await newSite("sqlite");
  seeded = await seedSite(source);
  archive = path.join(scratch, "site.tar");
  const run = await runCli("export", ["--out", archive], source);
  expect(run.stderr).toBe("");
  expect(run.code, run.stdout).toBe(0);
}, 120_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("the tables an archive carries", { timeout: CLI_TIMEOUT }, () => {
  it("names every table of a migrated database, carried or left out on purpose", async () => {
    for (const engine of POSTGRES ? (["sqlite", "postgres"] as const) : (["sqlite"] as const)) {
      const site = await newSite(engine);
      const database = site.open();
      try {
        await migrateToLatest(database.db);
        const unlisted = (await tablesOf(database.db))
          .map((table) => table.name)
          .filter(
            (name) =>
              !isEngineTable(name) &&
              !(CARRIED_TABLES as readonly string[]).includes(name) &&
              !(name in SKIPPED_TABLES),
          );
        // A new table must be added to CARRIED_TABLES (in foreign-key order) or SKIPPED_TABLES.
        expect(unlisted, `${engine}: tables neither carried nor skipped`).toEqual([]);
      } finally {
        await database.close();
        await site.drop();
      }
    }
  });
});

describe(
  "npm run import of a site archive: refusals, nothing written",
  { timeout: CLI_TIMEOUT },
  () => {
    let target: Site;

    beforeAll(async () => {
      target = await newSite(targetEngine);
    });
    afterAll(async () => {
      await target.drop();
    });

    async function expectEmpty() {
      const { rows, files } = await snapshot(target);
      for (const table of CARRIED_TABLES) expect(rows[table], table).toEqual([]);
      expect(Object.keys(files)).toEqual([]);
    }

    it("refuses a site that has rows, and changes nothing in it", async () => {
      const run = await runCli("import", [archive], source);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^The target site is not empty \(users, categories, series, posts/,
      );
      expect(run.stderr).toContain("nothing was imported");
      expect(await snapshot(source)).toEqual({ rows: seeded.rows, files: seeded.files });
    });

    it("refuses a file that is not there", async () => {
      const run = await runCli("import", [path.join(scratch, "nowhere.tar")], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("There is no file");
      await expectEmpty();
    });

    it("refuses a file that is not an archive, and a compressed one", async () => {
      const text = path.join(scratch, "not-a-tar.tar");
      await writeFile(text, '{"posts": []}\n'.repeat(100));
      let run = await runCli("import", [text], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^The archive is damaged or not a site export/);

      const gzipped = path.join(scratch, "site.tar.gz");
      await writeFile(gzipped, gzipSync(await readFile(archive)));
      run = await runCli("import", [gzipped], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("is compressed (gzip): decompress it first");
      await expectEmpty();
    });

    it("refuses a truncated archive, wherever it was cut", async () => {
      const whole = await readFile(archive);
      for (const fraction of [0.1, 0.5, 0.97]) {
        const cut = path.join(scratch, `cut-${String(fraction)}.tar`);
        await writeFile(cut, whole.subarray(0, Math.floor(whole.length * fraction)));
        const run = await runCli("import", [cut], target);
        expect(run.code, `cut at ${String(fraction)}`).toBe(1);
        expect(run.stderr).toMatch(/^The archive is damaged or not a site export/);
      }
      // Cut exactly before the manifest: every entry whole, the list of what should be there gone.
      const entries = await entriesOf(archive);
      const cut = path.join(scratch, "no-manifest.tar");
      await writeFile(cut, await packed(entries.slice(0, -1)));
      const run = await runCli("import", [cut], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("it ends before its manifest");
      await expectEmpty();
    });

    it("refuses an archive whose bytes differ from its manifest (an image, a row)", async () => {
      const entries = await entriesOf(archive);
      const image = entries.findIndex((entry) => entry.name.startsWith("files/"));
      const flipped = entries.map((entry, index) => {
        if (index !== image) return entry;
        const body = Buffer.from(entry.body);
        body[body.length - 1] = (body[body.length - 1] ?? 0) ^ 0xff;
        return { ...entry, body };
      });
      const altered = path.join(scratch, "altered.tar");
      await writeFile(altered, await packed(flipped));
      let run = await runCli("import", [altered], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("is not what its manifest says");

      const users = entries.findIndex((entry) => entry.name === "tables/users.jsonl");
      const edited = entries.map((entry, index) =>
        index === users
          ? {
              ...entry,
              body: Buffer.from(
                entry.body.toString("utf8").replace('"is_admin":1', '"is_admin":0'),
              ),
            }
          : entry,
      );
      await writeFile(altered, await packed(edited));
      run = await runCli("import", [altered], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("tables/users.jsonl is not what its manifest says");
      await expectEmpty();
    });

    it("refuses rows that are not JSON, or not of the table's columns, even with a manifest that agrees", async () => {
      const notJson = await rewritten(archive, (entries) => {
        const posts = entries.find((entry) => entry.name === "tables/posts.jsonl");
        if (posts) posts.body = Buffer.concat([posts.body, Buffer.from('{"id": "x", \n')]);
      });
      let run = await runCli("import", [notJson], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("a row of posts is not JSON");

      const extraColumn = await rewritten(archive, (entries, manifest) => {
        const categories = entries.find((entry) => entry.name === "tables/categories.jsonl");
        if (categories)
          categories.body = Buffer.from(
            categories.body
              .toString("utf8")
              .replaceAll('"created_at"', '"colour":"red","created_at"'),
          );
        const table = manifest.tables.find((candidate) => candidate.name === "categories");
        table?.columns.push("colour");
      });
      run = await runCli("import", [extraColumn], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        "The table categories has other columns here than in the archive",
      );

      const olderVersion = await rewritten(archive, (_entries, manifest) => {
        manifest.migration = "006-body-images";
      });
      run = await runCli("import", [olderVersion], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("exported at database version 006-body-images");
      await expectEmpty();
    });

    it("writes nothing, and removes the images it wrote, when the database refuses a row", async () => {
      // Every check on the archive passes; the like names a post that does not exist.
      const brokenLike = await rewritten(archive, (entries) => {
        const likes = entries.find((entry) => entry.name === "tables/likes.jsonl");
        if (!likes) throw new Error("no likes");
        const [first = ""] = likes.body.toString("utf8").split("\n");
        const row = JSON.parse(first) as Record<string, unknown>;
        likes.body = Buffer.concat([
          likes.body,
          Buffer.from(`${JSON.stringify({ ...row, post_id: "no-such-post" })}\n`),
        ]);
      });
      const run = await runCli("import", [brokenLike], target);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^Failed: .*(foreign key|FOREIGN KEY)/i);
      await expectEmpty();
    });
  },
);

describe("npm run export, then import into an empty site", { timeout: CLI_TIMEOUT }, () => {
  it("restores every row and every image byte, SQLite to SQLite", async () => {
    const target = await newSite("sqlite");
    const run = await runCli("import", [archive], target);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("posts: 5 rows");
    expect(seeded.rows.post_views_daily).toHaveLength(1);
    expect(seeded.rows.post_referrers_daily).toHaveLength(1);
    expect(run.stdout).toContain(`image files: ${String(Object.keys(seeded.files).length)}`);
    const restored = await snapshot(target);
    expect(restored.rows).toEqual(seeded.rows);
    expect(restored.files).toEqual(seeded.files);
    // A post keeps its series and its place there.
    expect(run.stdout).toContain("series: 1 rows");
    const [series] = seeded.rows.series ?? [];
    const placed = (restored.rows.posts ?? []).filter((row) => row.series_id === series?.id);
    expect(placed.map((row) => row.series_position)).toContain(7);
    // Sign-ins and mailed links stay behind; the accounts and their passwords come along.
    const database = target.open();
    try {
      expect(await database.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
      expect(await database.db.selectFrom("verification_tokens").selectAll().execute()).toEqual([]);
      expect(await database.db.selectFrom("stats_visitors").selectAll().execute()).toEqual([]);
      expect(await database.db.selectFrom("stats_salts").selectAll().execute()).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it("carries the images into S3 storage and out of it again", async () => {
    const s3 = await startTestS3();
    try {
      const onS3 = await newSite("sqlite");
      const withS3 = { ...onS3, env: s3.env };
      let run = await runCli("import", [archive], withS3);
      expect(run.code, run.stderr).toBe(0);
      // The files went to the bucket, not to DATA_DIR/uploads.
      expect(Object.keys(await allFiles(onS3.uploads))).toEqual([]);

      const again = path.join(scratch, "from-s3.tar");
      run = await runCli("export", ["--out", again], withS3);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toContain("Warning");
      const back = await newSite("sqlite");
      run = await runCli("import", [again], back);
      expect(run.code, run.stderr).toBe(0);
      const restored = await snapshot(back);
      expect(restored.rows).toEqual(seeded.rows);
      expect(restored.files).toEqual(seeded.files);
    } finally {
      await s3.close();
    }
  });

  it.skipIf(!POSTGRES)("restores it exactly from SQLite to PostgreSQL and back", async () => {
    const postgres = await newSite("postgres");
    try {
      let run = await runCli("import", [archive], postgres);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const onPostgres = await snapshot(postgres);
      expect(onPostgres.rows).toEqual(seeded.rows);
      expect(onPostgres.files).toEqual(seeded.files);

      const again = path.join(scratch, "from-postgres.tar");
      run = await runCli("export", ["--out", again], postgres);
      expect(run.code, run.stderr).toBe(0);
      const back = await newSite("sqlite");
      run = await runCli("import", [again], back);
      expect(run.code, run.stderr).toBe(0);
      const restored = await snapshot(back);
      expect(restored.rows).toEqual(seeded.rows);
      expect(restored.files).toEqual(seeded.files);
    } finally {
      await postgres.drop();
    }
  });
});
