import { sql, type Kysely, type Migration } from "kysely";

// Images in post bodies (decision 010): each upload is a row, so the post that uses it deletes it
// with itself and an upload no post claimed is swept after a day. `width` and `height` are the
// largest stored variant's, written into the post's stored HTML so images take their place before
// they load.
export const bodyImages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("body_images")
      .addColumn("image_key", "text", (c) => c.primaryKey())
      // An uploader's account may go while a post of someone else still shows their image.
      .addColumn("uploader_id", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("post_id", "text", (c) => c.references("posts.id").onDelete("cascade"))
      .addColumn("width", "integer", (c) => c.notNull())
      .addColumn("height", "integer", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      // When an edit of its post stopped using it: swept a day after that, as a new upload is.
      .addColumn("released_at", "text")
      .execute();
    await db.schema
      .createIndex("body_images_post_id")
      .on("body_images")
      .column("post_id")
      .execute();
    await db.schema
      .createIndex("body_images_unclaimed")
      .on("body_images")
      .columns(["uploader_id", "created_at"])
      .where(sql.ref("post_id"), "is", null)
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("body_images").execute();
  },
};
