import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type DatabaseHandle } from "../../db/connect.js";
import { createLocalStorage } from "../../core/media/storage.js";
import { sweepOrphanUploads } from "../../core/media/sweep.js";

// The start-up sweep over a real folder and a real (SQLite) database: what a crash leaves between
// storing an upload and writing its row goes, once it is old enough; everything else stays.

let dataDir: string;
let database: DatabaseHandle;
const now = Date.now();
const hourAgo = new Date(now - 60 * 60_000);
const cutoff = new Date(now - 10 * 60_000);

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "blog-sweep-"));
  database = openDatabase({ dataDir });
  await migrateToLatest(database.db);
});

afterEach(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

const images = () => path.join(dataDir, "uploads", "images");

/** An image folder holding `files`, all written `when`; the folder itself made then too. */
async function plant(id: string, files: string[], when: Date) {
  const folder = path.join(images(), id);
  await mkdir(folder, { recursive: true });
  for (const file of files) {
    await writeFile(path.join(folder, file), "bytes");
    await utimes(path.join(folder, file), when, when);
  }
  await utimes(folder, when, when);
  return folder;
}

async function userWithPhoto(id: string, photoKey: string) {
  const at = new Date().toISOString();
  await database.db
    .insertInto("users")
    .values({
      id,
      username: id,
      email: `${id}@example.com`,
      email_key: `${id}@example.com`,
      password_hash: "x",
      bio: "",
      is_admin: 0,
      is_verified: 1,
      verified_email_key: `${id}@example.com`,
      photo_key: photoKey,
      social_media: "[]",
      created_at: at,
      updated_at: at,
    })
    .execute();
}

const sweep = () =>
  sweepOrphanUploads(
    { db: database.db, storage: createLocalStorage(path.join(dataDir, "uploads"), "/uploads") },
    { olderThan: cutoff },
  );

describe("sweepOrphanUploads", () => {
  it("keeps files a row refers to, however old", async () => {
    const used = await plant("used1", ["lg.webp", "md.webp", "sm.webp"], hourAgo);
    await userWithPhoto("u1", "images/used1");
    expect(await sweep()).toBe(0);
    expect(existsSync(path.join(used, "sm.webp"))).toBe(true);
  });

  it("keeps the site's logo, however old", async () => {
    const logo = await plant("logo1", ["lg.webp", "md.webp", "sm.webp"], hourAgo);
    await database.db
      .insertInto("site_settings")
      .values({
        id: "site",
        title: "T",
        welcome: "W",
        contact_phone: "+1 555 0100",
        contact_email: "a@example.com",
        logo_key: "images/logo1",
        updated_at: new Date().toISOString(),
      })
      .execute();
    expect(await sweep()).toBe(0);
    expect(existsSync(path.join(logo, "sm.webp"))).toBe(true);
  });

  it("keeps files without a row while they are young: an upload may be on its way", async () => {
    const young = await plant("young1", ["lg.webp"], new Date());
    const folderOnly = await plant("young2", [], new Date());
    expect(await sweep()).toBe(0);
    expect(existsSync(path.join(young, "lg.webp"))).toBe(true);
    expect(existsSync(folderOnly)).toBe(true);
  });

  it("keeps an old image without a row when one of its files is young", async () => {
    const folder = await plant("mixed1", ["lg.webp"], hourAgo);
    await writeFile(path.join(folder, "sm.webp.tmp"), "half");
    expect(await sweep()).toBe(0);
    expect(existsSync(path.join(folder, "lg.webp"))).toBe(true);
  });

  it("removes old files without a row, half-written ones, and folders left empty", async () => {
    await userWithPhoto("u1", "images/used1");
    const used = await plant("used1", ["lg.webp"], hourAgo);
    const whole = await plant("orphan1", ["lg.webp", "md.webp", "sm.webp"], hourAgo);
    const half = await plant("orphan2", ["lg.webp", "sm.webp.tmp"], hourAgo);
    const empty = await plant("orphan3", [], hourAgo);
    expect(await sweep()).toBe(6);
    expect(existsSync(whole)).toBe(false);
    expect(existsSync(half)).toBe(false);
    expect(existsSync(empty)).toBe(false);
    expect(existsSync(path.join(used, "lg.webp"))).toBe(true);
    expect(existsSync(images())).toBe(true);
  });
});
