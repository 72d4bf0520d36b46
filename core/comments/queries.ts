import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";

/** Comments with the author's public fields. */
export const selectComments = (db: Kysely<Database>) =>
  db
    .selectFrom("comments")
    .innerJoin("users", "users.id", "comments.user_id")
    .selectAll("comments")
    .select(["users.username", "users.photo_key"]);
