/**
 * Which tables a site export carries, in foreign-key order (a table comes after every table it
 * refers to), and which it leaves out on purpose (decision 019). A table in neither list makes
 * tests/api/export-import.test.ts fail: whoever adds a table decides here whether a backup keeps it.
 */
export const CARRIED_TABLES = [
  "users",
  "categories",
  // Decision 032: a writer's series (posts name theirs, so they come first).
  "series",
  "posts",
  "post_tags",
  "post_revisions",
  // Decision 032: static pages, the slugs they had and their revisions (body images name them).
  "pages",
  "page_slugs",
  "page_revisions",
  "likes",
  "comments",
  "body_images",
  "audit_log",
  "reports",
  "site_settings",
  // Decision 016: who follows whom, saved posts, notifications (they refer to all of the above).
  "follows",
  "bookmarks",
  "notifications",
  "user_settings",
  // Decision 024: how accounts sign in besides the password (passkeys work where the site keeps
  // its host name).
  "recovery_codes",
  "passkeys",
  // Decision 025: scripts keep their tokens and receivers their webhooks' secrets after a move.
  "api_tokens",
  "webhooks",
  // Decision 026: the counts a writer's stats are made of (no visitor is in them).
  "post_views_daily",
  "author_views_daily",
  "site_views_daily",
  "post_referrers_daily",
  // Decision 028: the site's subscribers move with it, and which posts were mailed (never twice).
  "subscriptions",
  "newsletter_sends",
] as const;

export type CarriedTable = (typeof CARRIED_TABLES)[number];

/** Each carried table's primary key: rows are read and written in its order. */
export const TABLE_KEYS: Readonly<Record<CarriedTable, readonly string[]>> = {
  users: ["id"],
  categories: ["id"],
  series: ["id"],
  pages: ["id"],
  page_slugs: ["slug"],
  page_revisions: ["id"],
  posts: ["id"],
  post_tags: ["post_id", "tag"],
  post_revisions: ["id"],
  likes: ["user_id", "post_id"],
  comments: ["id"],
  body_images: ["image_key"],
  audit_log: ["id"],
  reports: ["id"],
  site_settings: ["id"],
  follows: ["follower_id", "followee_id"],
  bookmarks: ["user_id", "post_id"],
  notifications: ["id"],
  user_settings: ["user_id"],
  recovery_codes: ["id"],
  passkeys: ["id"],
  api_tokens: ["id"],
  webhooks: ["id"],
  post_views_daily: ["post_id", "day"],
  author_views_daily: ["author_id", "day"],
  site_views_daily: ["day"],
  post_referrers_daily: ["post_id", "day", "host"],
  subscriptions: ["id"],
  newsletter_sends: ["post_id"],
};

/** Tables left out, each with the reason (the report of an export prints them). */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  sessions: "sign-ins end with the move: everyone signs in again (their passwords are carried)",
  verification_tokens: "links mailed before the move are not honoured by the restored site",
  webauthn_challenges: "passkey sign-ins under way when the site moved start again",
  site_secrets:
    "the target keeps the key it made: unsubscribe links mailed before the move stop working, later mails carry new ones",
  mail_digests: "conversation mail waiting to be sent is not carried (decision 017)",
  mail_events: "conversation mail waiting to be sent is not carried (decision 017)",
  outbox:
    "events, conversation mail and webhook deliveries waiting or done are not carried (decision 027)",
  stats_visitors:
    "the day's visitor hashes are not carried: a reader may count again on the day of the move (decision 026)",
  stats_salts: "a day's salt never leaves the server that drew it (decision 026)",
  newsletter_confirmations:
    "the day's count of confirmation mails an address was sent starts again (decision 028)",
  kysely_migration: "the target's migrations are its own (the archive names the version)",
  kysely_migration_lock: "the target's migrations are its own",
  // The search index (decision 015) is derived from the posts: the target's triggers rebuild it as
  // the posts are written.
  post_search: "the search index is rebuilt from the posts as they are written",
  post_search_docs: "the search index is rebuilt from the posts as they are written",
  post_search_data: "part of SQLite's search index, rebuilt from the posts",
  post_search_idx: "part of SQLite's search index, rebuilt from the posts",
  post_search_docsize: "part of SQLite's search index, rebuilt from the posts",
  post_search_config: "part of SQLite's search index, rebuilt from the posts",
};

/** Tables of the engine itself, never the site's. */
export const isEngineTable = (name: string) => name.startsWith("sqlite_");
