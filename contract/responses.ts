import { z } from "./zod.js";
import { POST_STATUSES } from "./content.js";
import { REPORT_ACTIONS, REPORT_REASONS } from "./moderation.js";
import { SUBSCRIPTION_STATUSES } from "./newsletter.js";
import { SOCIAL_NETWORKS } from "./users.js";

/**
 * What the API answers, as the API reference describes it (DESIGN.md 5 and 9). The presenters in
 * core/ make these shapes; tests/api/openapi.test.ts checks real answers against the published
 * document, so a field added, renamed or leaked without a change here fails there.
 */

/** The schemas the reference names (its components/schemas); the key is the name. */
export const namedResponseSchemas = new Map<string, z.ZodType>();

function named<S extends z.ZodType>(name: string, schema: S): S {
  namedResponseSchemas.set(name, schema);
  return schema;
}

const id = z.string().describe("The entity's id");
/** Times are ISO 8601 strings in UTC. */
const time = z.string().describe("ISO 8601 time");

export const MessageSchema = named("Message", z.object({ message: z.string() }));

export const ErrorSchema = named(
  "Error",
  z.object({ message: z.string().describe("What went wrong, in words a person can read") }),
);

/** A sign-in refused for a suspension: SPEC's message and the suspension's terms (issue 33). */
export const SuspendedErrorSchema = named(
  "SuspendedError",
  z.object({
    message: z.string().describe('"This account is suspended"'),
    reason: z.string().nullable().describe("What the admin told the member; null: none given"),
    suspendedUntil: z
      .string()
      .nullable()
      .describe("When it lifts by itself (ISO 8601); null: until an admin restores it"),
  }),
);

export const ValidationErrorSchema = named(
  "ValidationError",
  z.object({
    message: z.string().describe("The first problem found"),
    errors: z
      .record(z.string(), z.string())
      .describe("Field name -> the first problem with that field"),
  }),
);

export const ImageSchema = z.object({ url: z.string() });

export const PublicUserSchema = named(
  "PublicUser",
  z.object({ _id: id, id, username: z.string(), profilePhoto: ImageSchema }),
);

export const PostSchema = named(
  "Post",
  z.object({
    _id: id,
    id,
    title: z.string(),
    description: z.string().describe("The body, in Markdown, as written"),
    excerpt: z.string().describe("Plain text, at most 200 characters"),
    readingMinutes: z.number().int(),
    category: z.string(),
    image: ImageSchema.nullable().describe("Null for a draft saved without a cover image"),
    imageAlt: z
      .string()
      .nullable()
      .describe("The writer's description of the image; null: the title describes it"),
    user: PublicUserSchema,
    tags: z.array(z.string()).describe("Lowercase, in the writer's order"),
    metaDescription: z
      .string()
      .nullable()
      .describe("What search engines and share cards show; null: the excerpt"),
    canonicalUrl: z
      .string()
      .nullable()
      .describe("Where the post first appeared, when elsewhere; null: here"),
    likesCount: z.number().int(),
    commentsCount: z.number().int(),
    status: z.enum(POST_STATUSES),
    publishedAt: time.nullable(),
    publishAt: time.nullable().optional().describe("Only on a scheduled post"),
    newsletter: z
      .enum(["send", "none"])
      .optional()
      .describe("Only until it is published: whether publishing e-mails it to subscribers"),
    createdAt: time,
    updatedAt: time,
    series: z
      .object({
        _id: id,
        title: z.string(),
        position: z
          .number()
          .int()
          .describe("Its place among the series' published posts (a draft: where it will stand)"),
        total: z.number().int().describe("How many parts readers see (with this one)"),
      })
      .nullable()
      .describe("The series it is part of; null: none"),
  }),
);

export const PostListSchema = named("PostList", z.array(PostSchema));

export const RevisionListSchema = named(
  "RevisionList",
  z.array(
    z.object({
      _id: id,
      createdAt: time.describe("When the edit that replaced this text was made"),
      editor: PublicUserSchema.nullable().describe(
        "Who made that edit; null once their account is deleted",
      ),
      title: z.string(),
    }),
  ),
);

export const RevisionSchema = named(
  "Revision",
  z.object({
    _id: id,
    createdAt: time,
    title: z.string(),
    description: z.string(),
    category: z.string(),
    tags: z.array(z.string()),
  }),
);

export const TagListSchema = named(
  "TagList",
  z.array(z.object({ name: z.string(), postsCount: z.number().int() })),
);

export const CommentSchema = named(
  "Comment",
  z.object({
    _id: id,
    id,
    text: z.string(),
    postId: z.string(),
    parentId: z.string().nullable().describe("The thread's first comment; null at the top"),
    user: PublicUserSchema,
    userName: z.string(),
    createdAt: time,
    updatedAt: time,
  }),
);

export const CommentListSchema = named("CommentList", z.array(CommentSchema));

export const PostDetailSchema = named(
  "PostDetail",
  PostSchema.extend({
    html: z.string().describe("The sanitized rendering of the body"),
    likes: z.array(PublicUserSchema),
    comments: z.array(CommentSchema),
  }),
);

export const PostDeletedSchema = named(
  "PostDeleted",
  z.object({ postId: z.string(), message: z.string() }),
);

// Static pages (DESIGN.md 11, "Pages and series"; decision 032).
const pageStatus = z.enum(["draft", "published"]).describe("A draft is seen by admins alone");

export const PageSummarySchema = z.object({
  _id: id,
  slug: z.string().describe("Its address is `/pages/<slug>`"),
  title: z.string(),
  metaDescription: z.string().nullable(),
  status: pageStatus,
  publishedAt: time.nullable().describe("When it was first published"),
  updatedAt: time,
});

export const PageListSchema = named("PageList", z.array(PageSummarySchema));

export const PageSchema = named(
  "Page",
  z.object({
    ...PageSummarySchema.shape,
    description: z.string().describe("The Markdown source"),
    html: z.string().describe("The body rendered and sanitized"),
    excerpt: z.string(),
    author: PublicUserSchema.nullable().describe("The admin who wrote it; null once gone"),
    createdAt: time,
  }),
);

export const PageDeletedSchema = named(
  "PageDeleted",
  z.object({ pageId: z.string(), message: z.string() }),
);

// Series (DESIGN.md 11, "Pages and series"; decision 032).
export const SeriesSchema = named(
  "Series",
  z.object({
    _id: id,
    title: z.string(),
    description: z.string().describe("Plain text; empty: none"),
    author: PublicUserSchema,
    posts: z
      .array(PostSchema)
      .describe("In the series' order: published ones, and drafts too for the writer alone"),
    createdAt: time,
    updatedAt: time,
  }),
);

export const SeriesDeletedSchema = named(
  "SeriesDeleted",
  z.object({ seriesId: z.string(), message: z.string() }),
);

export const PageRevisionSchema = named(
  "PageRevision",
  z.object({ _id: id, createdAt: time, title: z.string(), description: z.string() }),
);

export const BodyImageSchema = named(
  "BodyImage",
  z.object({ url: z.string(), width: z.number().int(), height: z.number().int() }),
);

export const CategorySchema = named(
  "Category",
  z.object({ _id: id, id, title: z.string(), createdAt: time }),
);

export const CategoryListSchema = named("CategoryList", z.array(CategorySchema));

export const CategoryDeletedSchema = named(
  "CategoryDeleted",
  z.object({ categoryId: z.string(), message: z.string() }),
);

export const CommentUpdatedSchema = named(
  "CommentUpdated",
  CommentSchema.extend({ message: z.string() }),
);

export const CommentDeletedSchema = named(
  "CommentDeleted",
  z.object({ commentId: z.string(), message: z.string() }),
);

export const SignedInSchema = named(
  "SignedIn",
  PublicUserSchema.extend({
    isAdmin: z.boolean(),
    token: z.string().describe("Send it as `Authorization: Bearer <token>`"),
  }),
);

export const UserCountSchema = named("UserCount", z.object({ userCount: z.number().int() }));

export const AdminUserSchema = named(
  "AdminUser",
  PublicUserSchema.extend({
    email: z.string(),
    bio: z.string(),
    isAdmin: z.boolean(),
    isVerified: z.boolean(),
    suspended: z.boolean(),
    createdAt: time,
  }),
);

export const AdminUserListSchema = named("AdminUserList", z.array(AdminUserSchema));

export const AdminUserSearchSchema = named(
  "AdminUserSearch",
  z.object({
    total: z.number().int().describe("How many accounts the search finds, on every page"),
    users: z.array(AdminUserSchema),
  }),
);

export const ProfileSchema = named(
  "Profile",
  PublicUserSchema.extend({
    bio: z.string(),
    socialMedia: z.array(z.object({ name: z.enum(SOCIAL_NETWORKS), url: z.string() })),
    posts: z.array(PostSchema),
    createdAt: time,
    email: z.string().optional().describe("Only to the account's owner and admins"),
    pendingEmail: z
      .string()
      .optional()
      .describe("A new address waiting for confirmation; only to the owner"),
    followersCount: z.number().int().min(0),
    followingCount: z.number().int().min(0),
    followedByYou: z.boolean().optional().describe("Only to a signed-in viewer"),
  }),
);

export const ProfilePhotoSchema = named(
  "ProfilePhoto",
  z.object({ profilePhoto: ImageSchema, message: z.string() }),
);

export const SuspensionSchema = named(
  "Suspension",
  z.object({ _id: id, suspended: z.boolean(), message: z.string() }),
);

export const ReportCreatedSchema = named(
  "ReportCreated",
  z.object({ _id: id, message: z.string() }),
);

const userRef = z.object({ _id: id, username: z.string() });

export const ReportGroupSchema = named(
  "ReportGroup",
  z.object({
    _id: id.describe("The newest report of the group: decide it to decide them all"),
    status: z.enum(["open", "closed"]),
    target: z.object({
      kind: z.enum(["post", "comment", "user"]),
      _id: id,
      summary: z.string(),
      user: userRef.nullable().describe("The target's author"),
    }),
    count: z.number().int(),
    reports: z.array(
      z.object({
        _id: id,
        reason: z.enum(REPORT_REASONS),
        note: z.string(),
        reporter: userRef,
        createdAt: time,
      }),
    ),
    decision: z.enum(REPORT_ACTIONS).nullable(),
    decidedBy: userRef.nullable(),
    decidedAt: time.nullable(),
  }),
);

export const ReportGroupListSchema = named("ReportGroupList", z.array(ReportGroupSchema));

export const ReportDecidedSchema = named(
  "ReportDecided",
  z.object({
    _id: id,
    status: z.literal("closed"),
    decision: z.enum(REPORT_ACTIONS),
    message: z.string(),
  }),
);

export const AuditEntrySchema = named(
  "AuditEntry",
  z.object({
    _id: id,
    actor: userRef,
    action: z.string().describe("What was done, as `target.verb`: `post.delete`, `user.suspend`"),
    target: z.object({
      kind: z.enum(["post", "comment", "user", "category", "site", "webhook", "page", "series"]),
      _id: id,
      summary: z.string(),
    }),
    createdAt: time,
  }),
);

export const AuditListSchema = named("AuditList", z.array(AuditEntrySchema));

export const CountSchema = named("Count", z.number().int().min(0));

export const SiteSettingsSchema = named(
  "SiteSettings",
  z.object({
    title: z.string(),
    welcome: z.string(),
    contactPhone: z.string(),
    contactEmail: z.string(),
    logo: z
      .object({
        url: z.string(),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
      })
      .nullable()
      .describe("null: the default mark; width and height in pixels once known"),
    socialLinks: z
      .object({
        github: z.string().optional(),
        linkedin: z.string().optional(),
        x: z.string().optional(),
        facebook: z.string().optional(),
      })
      .describe("The footer's social links: only the networks that have one"),
    newsletterDefault: z
      .enum(["send", "none"])
      .describe("A new post's `newsletter` when its writer does not say"),
    navigation: z
      .object({
        header: z.array(z.object({ label: z.string(), url: z.string() })),
        footer: z.array(z.object({ label: z.string(), url: z.string() })),
      })
      .describe(
        "The header's and footer's links, in order (the defaults until an admin saves them)",
      ),
  }),
);

export const SiteSettingsSavedSchema = named(
  "SiteSettingsSaved",
  z.object({ settings: SiteSettingsSchema, message: z.string() }),
);

/** The reference itself: an OpenAPI 3.1 document (its own schema is the OpenAPI specification). */
export const OpenApiDocumentSchema = named(
  "OpenApiDocument",
  z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
);

export const SearchResultsSchema = named(
  "SearchResults",
  z.object({
    total: z.number().int().min(0).describe("Matches counted up to 1,000"),
    posts: z.array(
      PostSchema.extend({
        snippet: z
          .array(z.object({ text: z.string(), match: z.boolean() }))
          .describe("Plain text around the best match; `match` marks the words searched for"),
      }),
    ),
  }),
);

export const FollowStateSchema = named(
  "FollowState",
  z.object({ following: z.boolean(), followersCount: z.number().int().min(0) }),
);

export const BookmarkStateSchema = named("BookmarkState", z.object({ bookmarked: z.boolean() }));

export const NotificationSchema = named(
  "Notification",
  z.object({
    _id: id,
    kind: z.enum(["comment", "reply", "like", "follow"]),
    actor: PublicUserSchema,
    postId: id.optional(),
    commentId: id.optional(),
    read: z.boolean(),
    createdAt: time,
  }),
);

export const NotificationListSchema = named(
  "NotificationList",
  z.object({
    unread: z.number().int().min(0).describe("All unread, not only this page's"),
    notifications: z.array(NotificationSchema),
  }),
);

// Account security (DESIGN.md 10; decision 024).

export const TwoFactorSetupSchema = named(
  "TwoFactorSetup",
  z.object({
    secret: z.string().describe("The shared secret in base32, to type into an app"),
    otpauthUrl: z.string().describe("The otpauth:// address a QR code carries"),
  }),
);

export const RecoveryCodesSchema = named(
  "RecoveryCodes",
  z.object({
    recoveryCodes: z
      .array(z.string())
      .describe("Ten single-use codes, shown this once: each signs in instead of an app's code"),
  }),
);

export const PasskeyOptionsAnswerSchema = named(
  "PasskeyOptions",
  z.object({
    options: z
      .record(z.string(), z.unknown())
      .describe(
        "PublicKeyCredentialCreationOptionsJSON (registration) or PublicKeyCredentialRequestOptionsJSON (sign-in), for @simplewebauthn/browser",
      ),
    challengeId: z.string().describe("Send it back with the browser's answer (optional)"),
  }),
);

export const PasskeySchema = named(
  "Passkey",
  z.object({ _id: id, name: z.string(), createdAt: time, lastUsedAt: time.nullable() }),
);
export const PasskeyListSchema = z.array(PasskeySchema);

export const SessionSchema = named(
  "Session",
  z.object({
    _id: id,
    createdAt: time.describe("When it signed in"),
    lastSeenAt: time.describe("When it was last used (to the nearest five minutes)"),
    device: z.string().describe('Browser and system, e.g. "Firefox on Linux"'),
    current: z.boolean().describe("The session making this call"),
  }),
);
export const SessionListSchema = z.array(SessionSchema);

/** A personal API token as its owner's list shows it (decision 025): never the token. */
export const ApiTokenSchema = named(
  "ApiToken",
  z.object({
    _id: id,
    name: z.string(),
    scope: z
      .enum(["read", "write"])
      .describe("`read`: GET calls only; `write`: all but account changes"),
    createdAt: time,
    lastUsedAt: time.nullable().describe("When it was last used (to the nearest five minutes)"),
  }),
);
export const ApiTokenListSchema = z.array(ApiTokenSchema);
export const NewApiTokenSchema = named(
  "NewApiToken",
  ApiTokenSchema.extend({
    token: z
      .string()
      .describe("`blog_…`: shown this once, send as `Authorization: Bearer <token>`"),
  }),
);

export const WebhookSchema = named(
  "Webhook",
  z.object({
    _id: id,
    url: z.string(),
    events: z.array(z.string()),
    createdAt: time,
  }),
);
export const WebhookListSchema = z.array(WebhookSchema);
export const NewWebhookSchema = named(
  "NewWebhook",
  WebhookSchema.extend({
    secret: z
      .string()
      .describe("`whsec_…`: the signing secret (Standard Webhooks), shown this once"),
  }),
);
export const WebhookDeliverySchema = named(
  "WebhookDelivery",
  z.object({
    _id: id.describe("The `webhook-id` every try of it sends"),
    event: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    lastAttemptAt: time.nullable(),
    responseStatus: z
      .number()
      .int()
      .nullable()
      .describe("The receiver's last answer; null when it gave none (refused, timed out)"),
  }),
);
export const WebhookDeliveryListSchema = z.array(WebhookDeliverySchema);

const day = z.string().describe("A UTC day, YYYY-MM-DD");
const count = z.number().int().min(0);
const StatsDaySchema = z.object({ date: day, views: count, visitors: count });
const statsTotals = {
  views: count.describe(
    "Views of published post pages in the range (bots, prefetches, the author and HEAD left out)",
  ),
  visitors: count.describe("Unique visitors, counted per day and added up over the range"),
};
const ReferrerSchema = z.object({
  host: z.string().describe("Another site's host name"),
  views: count.describe("Readers it sent (each reader counted once a post and day)"),
});

export const PostStatsSchema = named(
  "PostStats",
  z.object({
    ...statsTotals,
    likes: count.describe("Likes given in the range"),
    comments: count.describe("Comments written in the range"),
    daily: z.array(StatsDaySchema).describe("One entry a day, zeros included, oldest first"),
    referrers: z.array(ReferrerSchema).describe("Most readers first, 20 at most"),
  }),
);
const newSubscribers = count.describe(
  "Subscriptions that became active that day (confirmed, or imported with consent)",
);
export const MyStatsSchema = named(
  "MyStats",
  PostStatsSchema.extend({
    subscribers: count.describe("Active subscriptions to the caller as a writer, now"),
    daily: z
      .array(StatsDaySchema.extend({ subscribers: newSubscribers }))
      .describe("One entry a day, zeros included, oldest first"),
    posts: z
      .array(z.object({ _id: id, title: z.string(), views: count }))
      .describe("The caller's posts read in the range, most viewed first, 50 at most"),
  }),
);
export const SiteStatsSchema = named(
  "SiteStats",
  z.object({
    ...statsTotals,
    signups: count,
    posts: count.describe("Posts published in the range"),
    comments: count,
    subscribers: count.describe(
      "Active subscriptions now, the site's and every writer's (an address once per scope)",
    ),
    daily: z
      .array(
        StatsDaySchema.extend({
          signups: count,
          posts: count,
          comments: count,
          subscribers: newSubscribers,
        }),
      )
      .describe("One entry a day, zeros included, oldest first"),
  }),
);

/** One subscription as its owners see it (DESIGN.md 11, "Newsletters"). */
export const SubscriptionSchema = named(
  "Subscription",
  z.object({
    _id: id,
    email: z.string().describe("The address, lowercased"),
    scope: z.enum(["site", "author"]).describe("Every post of the site, or one writer's"),
    authorId: z.string().optional().describe("The writer: on a writer's subscription only"),
    status: z.enum(SUBSCRIPTION_STATUSES),
    createdAt: time.describe("When it was asked for (or last asked for again)"),
  }),
);

export const SubscriberListSchema = named(
  "SubscriberList",
  z.object({
    total: count.describe("How many match, on every page"),
    subscribers: z.array(SubscriptionSchema).describe("Newest first, 20 a page"),
  }),
);

export const SubscriberImportSchema = named(
  "SubscriberImport",
  z.object({
    imported: count.describe(
      "Subscribed (with consent) or sent a confirmation (without); waiting ones confirmed",
    ),
    skipped: z
      .array(
        z.object({
          line: z.number().int().min(2).describe("The line of the file the row starts on"),
          reason: z.string(),
        }),
      )
      .describe("The rows left out, in the file's order"),
  }),
);
