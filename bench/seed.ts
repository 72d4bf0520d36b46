/**
 * Fills a database with realistic demo content through the database layer (not thousands of HTTP
 * calls): users, categories, posts with real images, likes and comments.
 *
 *   npm run seed:demo -- --users 50 --posts 300 --likes 1500 --comments 1500
 */
import path from "node:path";
import { parseArgs } from "node:util";
import type { Insertable, Kysely } from "kysely";
import sharp from "sharp";
import { hashPassword } from "../core/auth/passwords.js";
import { encodeImage, putImage, type EncodedImage } from "../core/media/images.js";
import { createLocalStorage, type Storage } from "../core/media/storage.js";
import { bodyColumns } from "../core/posts/body.js";
import { migrateToLatest, openDatabase } from "../db/connect.js";
import type { Database } from "../db/schema.js";
import { loadConfig } from "../server/config.js";

export interface SeedSizes {
  users: number;
  categories: number;
  posts: number;
  likes: number;
  comments: number;
}

export const DEMO_PASSWORD = "Demo-Pass1!";

const WORDS = (
  "build ship learn write read garden travel coffee morning city river mountain code design " +
  "story people light small simple fast quiet honest craft habit season kitchen music notebook " +
  "bridge window weekend letter journey practice lesson mistake idea future history market " +
  "street winter summer forest ocean library station neighbour friend workshop project"
).split(" ");
const CATEGORY_TITLES = [
  "Technology",
  "Travel",
  "Food",
  "Music",
  "Books",
  "Design",
  "Science",
  "Health",
  "Sports",
  "Photography",
  "Business",
  "Education",
  "Gardening",
  "History",
  "Art",
  "Film",
];
const NAMES = [
  "ada",
  "alan",
  "grace",
  "linus",
  "margaret",
  "dennis",
  "barbara",
  "ken",
  "frances",
  "edsger",
  "radia",
  "tim",
  "sophie",
  "guido",
  "anita",
  "donald",
  "hedy",
  "john",
  "katherine",
  "niklaus",
];

/** A small seeded generator, so the same sizes give the same data. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const words = (count: number) => Array.from({ length: count }, () => pick(WORDS)).join(" ");
  const sentence = () => {
    const text = words(6 + int(10));
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  return { int, pick, words, sentence };
}

async function imagePool(count: number): Promise<EncodedImage[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const hue = Math.round((360 * i) / count);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="675">
        <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stop-color="hsl(${String(hue)},70%,55%)"/>
          <stop offset="1" stop-color="hsl(${String((hue + 60) % 360)},70%,35%)"/>
        </linearGradient></defs>
        <rect width="1200" height="675" fill="url(#g)"/>
        <circle cx="${String(200 + ((i * 97) % 800))}" cy="340" r="160" fill="rgba(255,255,255,0.18)"/>
      </svg>`;
      const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
      return encodeImage(jpeg);
    }),
  );
}

async function insertInBatches<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
) {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** Seeded bodies are members' posts with no images of their own. */
const SEED_RENDERING = { followLinks: false, imageBases: [] };

/**
 * A Markdown body of `length` characters (at most the 20,000 a post may have) with what long
 * technical posts hold: headings, prose with links, lists, task lists, tables and code blocks.
 */
export function longMarkdownBody(length = 20_000) {
  const rnd = random(7);
  const sections: string[] = [];
  for (let i = 1; sections.join("").length < length; i += 1) {
    sections.push(
      `## ${rnd.sentence().slice(0, -1)}\n\n` +
        `${rnd.sentence()} ${rnd.sentence()} See [the notes](https://example.com/notes/${String(i)}) ` +
        `and **${rnd.words(2)}**, then *${rnd.words(3)}* and \`${rnd.pick(WORDS)}()\`.\n` +
        `${rnd.sentence()} ${rnd.sentence()}\n\n` +
        `- [x] ${rnd.sentence()}\n- [ ] ${rnd.sentence()}\n- ${rnd.sentence()}\n\n` +
        `| Step | Time | Notes |\n|:-----|-----:|:-----:|\n` +
        `| ${rnd.words(2)} | ${String(rnd.int(60))} min | ${rnd.words(3)} |\n` +
        `| ${rnd.words(2)} | ${String(rnd.int(60))} min | ${rnd.words(3)} |\n\n` +
        "```ts\n" +
        `export async function ${rnd.pick(WORDS)}${String(i)}(input: string): Promise<number> {\n` +
        `  // ${rnd.sentence()}\n` +
        `  const parts = input.split(" ").filter((part) => part.length > ${String(rnd.int(9))});\n` +
        `  return parts.length * ${String(rnd.int(100))};\n}\n` +
        "```\n\n" +
        `> ${rnd.sentence()}\n\n`,
    );
  }
  return sections.join("").slice(0, length).trimEnd();
}

/**
 * One post whose body is `longMarkdownBody()`, by the first member, a year old (so it is not the
 * newest post the other routes measure); returns its id.
 */
export async function seedLongMarkdownPost(db: Kysely<Database>, storage: Storage) {
  const author = await db
    .selectFrom("users")
    .select("id")
    .where("is_admin", "=", 0)
    .orderBy("created_at")
    .executeTakeFirstOrThrow();
  const category = await db.selectFrom("categories").select("title").executeTakeFirstOrThrow();
  const [image] = await imagePool(1);
  if (!image) throw new Error("No image to seed the long post with");
  const created = new Date(Date.now() - 365 * 24 * 3600 * 1000).toISOString();
  const description = longMarkdownBody();
  const id = crypto.randomUUID();
  await db
    .insertInto("posts")
    .values({
      id,
      user_id: author.id,
      title: "A long post in Markdown",
      description,
      ...bodyColumns(description, "markdown", SEED_RENDERING),
      category: category.title,
      image_key: await putImage(storage, image),
      image_alt: null,
      status: "published",
      publish_at: null,
      published_at: created,
      created_at: created,
      updated_at: created,
    })
    .execute();
  return id;
}

export async function seedDemo(db: Kysely<Database>, storage: Storage, sizes: SeedSizes) {
  const rnd = random(42);
  const run = Date.now().toString(36);
  const now = Date.now();
  const year = 365 * 24 * 3600 * 1000;
  const time = (ms: number) => new Date(ms).toISOString();

  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const users: Database["users"][] = Array.from({ length: sizes.users }, (_, i) => {
    const username = `${rnd.pick(NAMES)}${String(i)}`.slice(0, 15);
    const created = time(now - year - rnd.int(year));
    return {
      id: crypto.randomUUID(),
      username,
      email: `${username}.${run}@example.com`,
      email_key: `${username}.${run}@example.com`.toLowerCase(),
      password_hash: passwordHash,
      bio: rnd.sentence().slice(0, 200),
      is_admin: 0,
      is_verified: 1,
      verified_email_key: `${username}.${run}@example.com`.toLowerCase(),
      photo_key: null,
      social_media: JSON.stringify([{ name: "github", url: `https://github.com/${username}` }]),
      suspended_at: null,
      suspension_reason: null,
      suspended_until: null,
      totp_secret: null,
      totp_pending_secret: null,
      totp_last_step: null,
      created_at: created,
      updated_at: created,
    };
  });
  await insertInBatches(db, "users", users);

  const existing = new Set(
    (await db.selectFrom("categories").select("title_key").execute()).map((c) => c.title_key),
  );
  const categories = Array.from({ length: sizes.categories }, (_, i) => {
    const base = CATEGORY_TITLES[i % CATEGORY_TITLES.length] ?? "General";
    return i < CATEGORY_TITLES.length
      ? base
      : `${base} ${String(Math.floor(i / CATEGORY_TITLES.length) + 1)}`;
  }).filter((title) => !existing.has(title.toLowerCase()));
  await insertInBatches(
    db,
    "categories",
    categories.map((title) => ({
      id: crypto.randomUUID(),
      title,
      title_key: title.toLowerCase(),
      created_at: time(now - year),
    })),
  );
  const categoryTitles = (await db.selectFrom("categories").select("title").execute()).map(
    (c) => c.title,
  );

  const pool = await imagePool(Math.min(16, Math.max(1, sizes.posts)));
  const posts: Insertable<Database["posts"]>[] = [];
  for (let i = 0; i < sizes.posts; i += 1) {
    const created = time(now - rnd.int(year));
    const title = rnd
      .sentence()
      .slice(0, -1)
      .split(" ")
      .slice(0, 3 + rnd.int(5))
      .join(" ");
    const description = Array.from({ length: 3 + rnd.int(6) }, () => rnd.sentence()).join(" ");
    posts.push({
      id: crypto.randomUUID(),
      user_id: rnd.pick(users).id,
      title: `${title.charAt(0).toUpperCase()}${title.slice(1)}`,
      description,
      ...bodyColumns(description, "markdown", SEED_RENDERING),
      category: rnd.pick(categoryTitles),
      image_key: await putImage(storage, rnd.pick(pool)),
      image_alt: null,
      status: "published",
      publish_at: null,
      published_at: created,
      created_at: created,
      updated_at: created,
    });
  }
  await insertInBatches(db, "posts", posts);

  const likeKeys = new Set<string>();
  const likes: Database["likes"][] = [];
  const maxLikes = Math.min(sizes.likes, users.length * posts.length);
  while (likes.length < maxLikes) {
    const user = rnd.pick(users);
    const post = rnd.pick(posts);
    const key = `${user.id}:${post.id}`;
    if (likeKeys.has(key)) continue;
    likeKeys.add(key);
    likes.push({ user_id: user.id, post_id: post.id, created_at: post.created_at });
  }
  await insertInBatches(db, "likes", likes);

  const comments: Database["comments"][] =
    posts.length === 0
      ? []
      : Array.from({ length: sizes.comments }, () => {
          const post = rnd.pick(posts);
          const created = time(
            Date.parse(post.created_at) + rnd.int(Math.max(1, now - Date.parse(post.created_at))),
          );
          return {
            id: crypto.randomUUID(),
            post_id: post.id,
            user_id: rnd.pick(users).id,
            parent_id: null,
            text: rnd.sentence(),
            created_at: created,
            updated_at: created,
          };
        });
  await insertInBatches(db, "comments", comments);

  return {
    users: users.length,
    categories: categories.length,
    posts: posts.length,
    likes: likes.length,
    comments: comments.length,
  };
}

export const SEED_USAGE = `Usage: npm run seed:demo -- [options]

Fills the database named by DATABASE_URL (or the SQLite file in DATA_DIR) with demo content:
members who sign in with the password ${DEMO_PASSWORD}, categories, posts, likes and
comments. It adds to what is there; nothing is removed.

Options (whole numbers):
  --users N        members to add (default 30)
  --categories N   categories to add (default 8)
  --posts N        posts to add (default 120)
  --likes N        likes (default 600)
  --comments N     comments (default 400)
  -h, --help       this text
`;

function seedOptions() {
  try {
    return parseArgs({
      options: {
        users: { type: "string", default: "30" },
        categories: { type: "string", default: "8" },
        posts: { type: "string", default: "120" },
        likes: { type: "string", default: "600" },
        comments: { type: "string", default: "400" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n\n${SEED_USAGE}`,
    );
    process.exit(2);
  }
}

async function main() {
  const values = seedOptions();
  if (values.help) {
    process.stdout.write(SEED_USAGE);
    return;
  }
  const sizes: SeedSizes = {
    users: Number(values.users),
    categories: Number(values.categories),
    posts: Number(values.posts),
    likes: Number(values.likes),
    comments: Number(values.comments),
  };
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  }
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
    const storage = createLocalStorage(
      path.join(config.dataDir, "uploads"),
      `${config.publicUrl}/uploads`,
    );
    const started = Date.now();
    const made = await seedDemo(database.db, storage, sizes);
    process.stdout.write(
      `Seeded ${JSON.stringify(made)} in ${String(Date.now() - started)} ms into ${config.databaseUrl ? "PostgreSQL" : config.dataDir}.\n` +
        `Every demo user signs in with the password ${DEMO_PASSWORD}.\n`,
    );
  } finally {
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
