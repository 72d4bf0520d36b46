import type { Kysely, Migration } from "kysely";

// Portable DDL only: text and integer columns, foreign keys with cascades, plain indexes.
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("users")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("username", "text", (c) => c.notNull())
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("email_key", "text", (c) => c.notNull().unique())
      .addColumn("password_hash", "text", (c) => c.notNull())
      .addColumn("bio", "text", (c) => c.notNull())
      .addColumn("is_admin", "integer", (c) => c.notNull())
      .addColumn("is_verified", "integer", (c) => c.notNull())
      .addColumn("photo_key", "text")
      .addColumn("social_media", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("users_created_at").on("users").column("created_at").execute();

    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("expires_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("sessions_user_id").on("sessions").column("user_id").execute();

    await db.schema
      .createTable("verification_tokens")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("expires_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("verification_tokens_user_kind")
      .on("verification_tokens")
      .columns(["user_id", "kind"])
      .execute();

    await db.schema
      .createTable("categories")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("title_key", "text", (c) => c.notNull().unique())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("posts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("category", "text", (c) => c.notNull())
      .addColumn("image_key", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("posts_created_at")
      .on("posts")
      .columns(["created_at", "id"])
      .execute();
    await db.schema
      .createIndex("posts_category_created_at")
      .on("posts")
      .columns(["category", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("posts_user_created_at")
      .on("posts")
      .columns(["user_id", "created_at", "id"])
      .execute();

    await db.schema
      .createTable("likes")
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("likes_pk", ["user_id", "post_id"])
      .execute();
    await db.schema.createIndex("likes_post_id").on("likes").column("post_id").execute();

    await db.schema
      .createTable("comments")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("text", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("comments_post_created_at")
      .on("comments")
      .columns(["post_id", "created_at"])
      .execute();
    await db.schema.createIndex("comments_user_id").on("comments").column("user_id").execute();
    await db.schema
      .createIndex("comments_created_at")
      .on("comments")
      .column("created_at")
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const table of [
      "comments",
      "likes",
      "posts",
      "categories",
      "verification_tokens",
      "sessions",
      "users",
    ]) {
      await db.schema.dropTable(table).execute();
    }
  },
};
