import type { ColumnType, Generated } from "kysely";
import type {
  PageRevisionsTable,
  PageSlugsTable,
  PagesTable,
  PageStatus,
  SeriesTable,
} from "./pages-schema.js";

/**
 * Row types of every table. Times are ISO-8601 UTC strings (they sort as text on both engines);
 * flags are 0/1 integers, the one boolean both SQLite and PostgreSQL return alike.
 */
export interface UsersTable {
  id: string;
  username: string;
  email: string;
  /** Lowercased e-mail: the unique key, so addresses are unique regardless of case. */
  email_key: string;
  password_hash: string;
  bio: string;
  is_admin: number;
  is_verified: number;
  /**
   * The email_key this account proved it reads (a verification link, an e-mail change or a reset
   * link opened); null when it never did since the column was added.
   */
  verified_email_key: string | null;
  /** Storage key of the profile photo; null shows the default avatar. */
  photo_key: string | null;
  /** JSON array of {name, url}. */
  social_media: string;
  /** When an admin suspended the account; null while it is not (decision 013). */
  suspended_at: string | null;
  /** What the admin told the member when suspending them; null when no reason was given. */
  suspension_reason: string | null;
  /** When the suspension lifts by itself; null: until an admin restores the account. */
  suspended_until: string | null;
  /** The authenticator app's secret (base32) while two-factor sign-in is on (decision 024). */
  totp_secret: string | null;
  /** A secret being set up, not yet confirmed by a code. */
  totp_pending_secret: string | null;
  /** The 30-second step of the last code accepted: a code works once. */
  totp_last_step: number | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  /** SHA-256 of the bearer token; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  /** When the session was last used, to the nearest few minutes (null: not since signing in). */
  last_seen_at: string | null;
  /** "Firefox on Linux", read from the user agent at sign-in (the agent itself is not kept). */
  device: string | null;
  /**
   * 1: opened with more than a password (an app's code, a recovery code, a passkey), or a second
   * factor was set up in it; what the admin rule asks of an admin's session (decision 024).
   */
  second_factor: Generated<number>;
}

/** A single-use recovery code of two-factor sign-in, stored as its SHA-256. */
export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

/** A WebAuthn credential (a passkey) an account signs in with. */
export interface PasskeysTable {
  id: string;
  user_id: string;
  /** The credential's id, base64url, as the browser names it. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter (bigint: PostgreSQL answers it as text). */
  counter: ColumnType<number | string, number, number>;
  /** JSON array of transports ("internal", "hybrid", "usb"...), to hint the browser. */
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export type ChallengeKind = "register" | "login";

/** A challenge handed out with passkey options; taken once, within minutes. */
export interface WebauthnChallengesTable {
  id: string;
  /** The account registering a passkey; null for a sign-in (any account's passkey may answer). */
  user_id: string | null;
  kind: ChallengeKind;
  challenge: string;
  /** The name a new passkey gets. */
  name: string | null;
  expires_at: string;
}

/**
 * Sign-up verification, password reset, the confirmation of a new address, and a sign-in waiting
 * for its second factor on the web site (the password was right; decision 024).
 */
export type TokenKind = "email" | "password" | "email-change" | "sign-in";

export interface VerificationTokensTable {
  id: string;
  user_id: string;
  kind: TokenKind;
  token_hash: string;
  /**
   * The address the link was mailed to: the one an "email-change" token moves the account to, the
   * one a sign-up ("email") token proves; null for reset links and tokens from before.
   */
  new_email: string | null;
  created_at: string;
  expires_at: string;
}

export interface CategoriesTable {
  id: string;
  title: string;
  title_key: string;
  created_at: string;
}

/**
 * How a post's `description` is read: `markdown` (CommonMark + GFM) for every post written since
 * Markdown came, `plain` for the posts written before it, shown as they always were (decision 010).
 */
export type BodyFormat = "plain" | "markdown";

/**
 * Who sees a post: everyone once `published`; only its author and admins while it is a `draft` or
 * `scheduled` for `publish_at` (decision 011).
 */
export type PostStatus = "published" | "draft" | "scheduled";

export interface PostsTable {
  id: string;
  user_id: string;
  title: string;
  description: string;
  /** A category title, kept when the category is deleted (DESIGN.md 4). */
  category: string;
  /** Its cover image; null for a draft saved without one (019: publishing requires one). */
  image_key: string | null;
  /** The writer's description of the cover image; null: none given (the title stands in). */
  image_alt: string | null;
  body_format: BodyFormat;
  /** The sanitized rendering of `description`, made when it was written (core/posts/body.ts). */
  html: string;
  /** Plain text of the body, at most 200 characters. */
  excerpt: string;
  /** The body's whole plain text (no code), what search indexes and snippets quote (decision 015). */
  body_text: string;
  reading_minutes: number;
  status: PostStatus;
  /** When a scheduled post goes live; null unless `status` is `scheduled`. */
  publish_at: string | null;
  /** Its first publication (kept when it goes back to draft); null until then. Lists sort by it. */
  published_at: string | null;
  created_at: string;
  updated_at: string;
  /** Its tags, lowercase, space-separated in the writer's order; '' for none (post_tags too). */
  tags: Generated<string>;
  /** What search engines and share cards show for it; null: its excerpt. */
  meta_description: string | null;
  /** Where it first appeared, when elsewhere (an absolute http(s) URL); null: here. */
  canonical_url: string | null;
  /** Whether it is mailed to subscribers when it first goes public (decision 028). */
  newsletter: Generated<PostNewsletter>;
  /** The series it is part of (decision 032); null: none. */
  series_id: string | null;
  /** Its place in that series, ascending (numbers may skip); null outside a series. */
  series_position: number | null;
}

export type PostNewsletter = "send" | "none";

/** One row per tag of a post: what a tag's list and the tag counts read (016). */
export interface PostTagsTable {
  post_id: string;
  tag: string;
}

/** A post's title, body, category and tags before an edit changed them (018, decision 022). */
export interface PostRevisionsTable {
  id: string;
  post_id: string;
  /** Who made the edit; null once their account is deleted. */
  editor_id: string | null;
  title: string;
  description: string;
  category: string;
  /** As posts.tags: lowercase, space-separated. */
  tags: string;
  /** When the edit that replaced this text was made. */
  created_at: string;
}

export interface LikesTable {
  user_id: string;
  post_id: string;
  created_at: string;
}

export interface CommentsTable {
  id: string;
  post_id: string;
  user_id: string;
  /**
   * The thread a reply belongs to: its top-level comment's id (null for a top-level comment). It
   * may name a comment deleted since, whose replies stay (decision 013).
   */
  parent_id: string | null;
  text: string;
  created_at: string;
  updated_at: string;
}

/** An image uploaded for use in post bodies; its post deletes it, or the sweep when none claims it. */
export interface BodyImagesTable {
  /** `images/<id>`, as for every stored image. */
  image_key: string;
  /** Null once the uploader's account is deleted. */
  uploader_id: string | null;
  /** The post whose body uses it; null until a post claims it (or after its post stopped). */
  post_id: string | null;
  /** Of the largest stored variant. */
  width: number;
  height: number;
  /**
   * What it stored, all its widths, counted against its uploader's daily quota. Optional on insert
   * (0): a blog import's images are dated at their source, outside any day's quota.
   */
  bytes: ColumnType<number, number | undefined, number>;
  created_at: string;
  /** When its post stopped using it, if it did. */
  released_at: string | null;
  /** The static page whose body uses it (decision 032); null for a post's images. */
  page_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** What an admin did (decision 013). */
export type AuditAction =
  | "post.delete"
  | "comment.delete"
  | "user.delete"
  | "user.suspend"
  | "user.restore"
  | "category.create"
  | "category.delete"
  | "site.update"
  | "webhook.create"
  | "webhook.delete"
  | "report.dismiss"
  | "report.remove"
  | "report.suspend"
  | "page.create"
  | "page.update"
  | "page.delete"
  | "series.delete";

/** One admin action; written in the action's own transaction, never changed or deleted. */
export interface AuditLogTable {
  id: string;
  /** The admin's id; the account may be gone since, so its name is kept beside it. */
  actor_id: string;
  actor_name: string;
  action: AuditAction;
  target_kind: "post" | "comment" | "user" | "category" | "site" | "webhook" | "page" | "series";
  target_id: string;
  /** The target as it was: a post's title, a user's name, a comment's first words. */
  target_summary: string;
  created_at: string;
}

/** The site's title, welcome and contacts as admins set them: one row, id "site" (decision 020). */
export interface SiteSettingsTable {
  id: string;
  title: string;
  welcome: string;
  contact_phone: string;
  contact_email: string;
  logo_key: string | null;
  /** JSON object of social network → URL, shown in the footer ('{}' for none). */
  social_links: Generated<string>;
  /** The logo's size in pixels (null: saved before sizes were kept). */
  logo_width: number | null;
  logo_height: number | null;
  /** 1: admins act as admins only with two-factor sign-in or a passkey (decision 024). */
  require_admin_second_factor: Generated<number>;
  /** A new post's `newsletter` when its writer does not say (decision 028). */
  newsletter_default: Generated<"send" | "none">;
  /** The header's and footer's links as JSON; null: the defaults (decision 032). */
  navigation: string | null;
  updated_at: string;
}

export type ReportTargetKind = "post" | "comment" | "user";
export type ReportReason = "spam" | "harassment" | "other";
export type ReportDecision = "dismiss" | "remove" | "suspend";

/** A member's report of a post, a comment or a user; kept, with the decision, once closed. */
export interface ReportsTable {
  id: string;
  reporter_id: string;
  target_kind: ReportTargetKind;
  /** Not a foreign key: the target may be removed, and the report is kept. */
  target_id: string;
  /** The target's author (the user itself for a user), whom "suspend" suspends. */
  target_user_id: string | null;
  /** The target as it was reported: a post's title, a comment's text, a user's name. */
  target_summary: string;
  reason: ReportReason;
  note: string;
  status: "open" | "closed";
  decision: ReportDecision | null;
  decided_by: string | null;
  decided_by_name: string | null;
  decided_at: string | null;
  created_at: string;
}

/** Who follows whom (decision 016). */
export interface FollowsTable {
  follower_id: string;
  followee_id: string;
  created_at: string;
}

/** A post a reader saved for later. */
export interface BookmarksTable {
  user_id: string;
  post_id: string;
  created_at: string;
}

export type NotificationKind = "comment" | "reply" | "like" | "follow";

/** What someone else did to the recipient: written in the action's own transaction. */
export interface NotificationsTable {
  id: string;
  recipient_id: string;
  actor_id: string;
  kind: NotificationKind;
  /** The post commented on or liked; null for a follow. */
  post_id: string | null;
  /** The new comment or reply; null for a like or a follow. */
  comment_id: string | null;
  /** When the recipient saw it; null while unread. */
  read_at: string | null;
  created_at: string;
}

/** A person's choices; no row means the defaults (decision 017). */
export interface UserSettingsTable {
  user_id: string;
  email_notifications: number;
  updated_at: string;
}

export interface SiteSecretsTable {
  name: "unsubscribe";
  value: string;
}

/** Per recipient: when their next conversation mail is due, and until when the last one holds. */
export interface MailDigestsTable {
  recipient_id: string;
  due_at: string | null;
  quiet_until: string | null;
}

export type MailEventKind = "comment" | "reply";

/** Something a conversation mail tells about; `mail_id` null while it waits for its mail. */
export interface MailEventsTable {
  id: string;
  recipient_id: string;
  comment_id: string;
  kind: MailEventKind;
  mail_id: string | null;
  created_at: string;
}

export type TokenScope = "read" | "write";

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  scope: TokenScope;
  /** SHA-256 of the token: the token itself is shown once and never stored. */
  token_hash: string;
  /** 1 when the session that made it had proven a second factor (decision 025). */
  second_factor: number;
  created_at: string;
  last_used_at: string | null;
}

export interface WebhooksTable {
  id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  /** `whsec_…`: every delivery is signed with it, so it is kept as it is. */
  secret: string;
  created_by: string | null;
  created_at: string;
}

/** What the outbox carries (decision 027): events, and the deliveries they fan out to. */
export type OutboxChannel = "event" | "mail" | "webhook" | "newsletter";

export type DeliveryStatus = "pending" | "delivered" | "skipped" | "failed";

/**
 * One row of the outbox (decision 027): an event waiting for its dispatch, or a delivery (a
 * conversation mail, a webhook's POST) waiting for its try. `next_attempt_at` is both when the
 * next try is due and the lease of the instance making it.
 */
export interface OutboxTable {
  /** A webhook's `webhook-id` header, a mail's Message-ID. */
  id: string;
  channel: OutboxChannel;
  /** The event's type, or what a delivery tells of ("conversation", an event's type). */
  topic: string;
  /** A mail's recipient. */
  recipient_id: string | null;
  /** A webhook delivery's endpoint. */
  webhook_id: string | null;
  /** An event's JSON, or a webhook's body fixed when the event was dispatched. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the next try is due (or its sender's lease ends); null once finished. */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export type SubscriptionStatus = "pending" | "active" | "unsubscribed" | "bounced";

/** An address subscribed to the whole site or one writer (decision 028). */
export interface SubscriptionsTable {
  id: string;
  /** Lowercased and trimmed. */
  email: string;
  /** "site", or the writer's id. */
  scope_key: string;
  author_id: string | null;
  status: SubscriptionStatus;
  created_at: string;
  confirmed_at: string | null;
  /** When it was unsubscribed or bounced. */
  ended_at: string | null;
}

/** A confirmation mail sent to an address: at most three a day. */
export interface NewsletterConfirmationsTable {
  email: string;
  sent_at: string;
}

/** A post mailed to its subscribers: once ever. */
export interface NewsletterSendsTable {
  post_id: string;
  started_at: string;
  recipients: number;
}

/** Views and unique visitors of one post on one UTC day (decision 026). */
export interface PostViewsDailyTable {
  post_id: string;
  day: string;
  views: number;
  visitors: number;
}

/** Views and unique visitors of one writer's posts on one UTC day. */
export interface AuthorViewsDailyTable {
  author_id: string;
  day: string;
  views: number;
  visitors: number;
}

/** Views and unique visitors of the whole site on one UTC day. */
export interface SiteViewsDailyTable {
  day: string;
  views: number;
  visitors: number;
}

/** Readers who came to a post from another site's host on one UTC day. */
export interface PostReferrersDailyTable {
  post_id: string;
  day: string;
  host: string;
  views: number;
}

/**
 * A visitor hash seen on a day, per scope (a post's id, `author:<id>` or `site`): what makes a
 * reader counted once across batches and instances. Deleted the day after.
 */
export interface StatsVisitorsTable {
  day: string;
  scope: string;
  visitor: string;
}

/** The random salt of a day's visitor hashes; deleted once the day is over. */
export interface StatsSaltsTable {
  day: string;
  salt: string;
}

export type { PagesTable, PageSlugsTable, PageRevisionsTable, PageStatus, SeriesTable };

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  verification_tokens: VerificationTokensTable;
  categories: CategoriesTable;
  posts: PostsTable;
  pages: PagesTable;
  page_slugs: PageSlugsTable;
  page_revisions: PageRevisionsTable;
  series: SeriesTable;
  subscriptions: SubscriptionsTable;
  newsletter_confirmations: NewsletterConfirmationsTable;
  newsletter_sends: NewsletterSendsTable;
  post_tags: PostTagsTable;
  post_revisions: PostRevisionsTable;
  likes: LikesTable;
  comments: CommentsTable;
  body_images: BodyImagesTable;
  audit_log: AuditLogTable;
  reports: ReportsTable;
  follows: FollowsTable;
  bookmarks: BookmarksTable;
  notifications: NotificationsTable;
  site_settings: SiteSettingsTable;
  user_settings: UserSettingsTable;
  site_secrets: SiteSecretsTable;
  mail_digests: MailDigestsTable;
  mail_events: MailEventsTable;
  api_tokens: ApiTokensTable;
  webhooks: WebhooksTable;
  outbox: OutboxTable;
  post_views_daily: PostViewsDailyTable;
  author_views_daily: AuthorViewsDailyTable;
  site_views_daily: SiteViewsDailyTable;
  post_referrers_daily: PostReferrersDailyTable;
  stats_visitors: StatsVisitorsTable;
  stats_salts: StatsSaltsTable;
}
