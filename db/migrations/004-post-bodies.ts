import type { Kysely, Migration } from "kysely";
import { renderPlainBody } from "./frozen-renderer.js";

/** The columns the backfill reads and writes. */
interface BackfillDatabase {
  posts: {
    id: string;
    description: string;
    html: string;
    excerpt: string;
    reading_minutes: number;
  };
}

/** Rows read at a time: a batch of the longest bodies (20,000 characters) stays a few MB. */
const BATCH = 200;

// Markdown bodies (decision 010): each post keeps its rendering (`html`, `excerpt`,
// `reading_minutes`) so no page view renders it again. The posts written before are marked
// "plain" (the column's default) and rendered as the page showed them, so they look as they did.
export const postBodies: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("posts")
      .addColumn("body_format", "text", (column) => column.notNull().defaultTo("plain"))
      .execute();
    await db.schema
      .alterTable("posts")
      .addColumn("html", "text", (column) => column.notNull().defaultTo(""))
      .execute();
    await db.schema
      .alterTable("posts")
      .addColumn("excerpt", "text", (column) => column.notNull().defaultTo(""))
      .execute();
    await db.schema
      .alterTable("posts")
      .addColumn("reading_minutes", "integer", (column) => column.notNull().defaultTo(1))
      .execute();

    const posts = db as unknown as Kysely<BackfillDatabase>;
    let after = "";
    for (;;) {
      const rows = await posts
        .selectFrom("posts")
        .select(["id", "description"])
        .where("id", ">", after)
        .orderBy("id")
        .limit(BATCH)
        .execute();
      for (const row of rows) {
        const rendered = renderPlainBody(row.description);
        await posts
          .updateTable("posts")
          .set({
            html: rendered.html,
            excerpt: rendered.excerpt,
            reading_minutes: rendered.readingMinutes,
          })
          .where("id", "=", row.id)
          .execute();
      }
      const last = rows.at(-1);
      if (!last || rows.length < BATCH) return;
      after = last.id;
    }
  },

  async down(db: Kysely<unknown>) {
    for (const column of ["reading_minutes", "excerpt", "html", "body_format"]) {
      await db.schema.alterTable("posts").dropColumn(column).execute();
    }
  },
};
