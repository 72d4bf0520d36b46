import { expect } from "vitest";
import type { Client } from "./http.js";
import { pngImage, uploadedFiles } from "./images.js";
import type { TestServer } from "./test-server.js";
import type { TestUser } from "./factories.js";

/** The public user embedded in posts, likes and comments. */
export interface PublicUser {
  _id: string;
  id: string;
  username: string;
  profilePhoto: { url: string };
}

export interface PostSummary {
  _id: string;
  id: string;
  title: string;
  description: string;
  /** Plain text of the body, at most 200 characters (DESIGN.md 9). */
  excerpt: string;
  readingMinutes: number;
  category: string;
  /**
   * Null for a draft saved without a cover (DESIGN.md 10): tests/api/draft-covers.test.ts reads
   * such posts; every other test's posts have one.
   */
  image: { url: string };
  /** The writer's description of the image; null when none was given (the title stands in). */
  imageAlt: string | null;
  user: PublicUser;
  likesCount: number;
  commentsCount: number;
  /** DESIGN.md 9: `published`, `draft` or `scheduled`; only published posts are public. */
  status: "published" | "draft" | "scheduled";
  /** First publication; null until then. */
  publishedAt: string | null;
  /** Only on a scheduled post: when it goes live. */
  publishAt?: string | null;
  createdAt: string;
  updatedAt: string;
  /** DESIGN.md 10: lowercase, in the writer's order. */
  tags: string[];
  metaDescription: string | null;
  canonicalUrl: string | null;
  /** DESIGN.md 11 ("Pages and series"): its series and place as readers number it; null: none. */
  series: SeriesPlace | null;
}

/** Where a post stands in its series: among the published parts and itself. */
export interface SeriesPlace {
  _id: string;
  title: string;
  position: number;
  total: number;
}

export interface PostComment {
  _id: string;
  text: string;
  postId: string;
  user: PublicUser;
  userName: string;
  createdAt: string;
}

export interface PostDetail extends PostSummary {
  /** The body's sanitized HTML: on the post itself, never in lists. */
  html: string;
  likes: PublicUser[];
  comments: PostComment[];
}

export interface ErrorBody {
  message: string;
  errors?: Record<string, string>;
}

/** The exact keys of a post in a list (DESIGN.md 5), sorted. */
export const POST_SUMMARY_KEYS = [
  "_id",
  "canonicalUrl",
  "category",
  "commentsCount",
  "createdAt",
  "description",
  "excerpt",
  "id",
  "image",
  "imageAlt",
  "likesCount",
  "metaDescription",
  "publishedAt",
  "readingMinutes",
  "series",
  "status",
  "tags",
  "title",
  "updatedAt",
  "user",
];

/** The exact keys of a user embedded anywhere, sorted. */
export const PUBLIC_USER_KEYS = ["_id", "id", "profilePhoto", "username"];

/** Fails unless `user` has the public shape and nothing more. */
export function expectPublicUser(user: unknown) {
  expect(user).toBeTypeOf("object");
  expect(Object.keys(user as object).sort()).toEqual(PUBLIC_USER_KEYS);
  const { profilePhoto } = user as PublicUser;
  expect(Object.keys(profilePhoto)).toEqual(["url"]);
}

/** Fails unless `post` has exactly the keys of a post summary, with public nested objects. */
export function expectPostSummaryShape(post: unknown) {
  expect(post).toBeTypeOf("object");
  expect(Object.keys(post as object).sort()).toEqual(POST_SUMMARY_KEYS);
  const { image, user } = post as PostSummary;
  expect(Object.keys(image)).toEqual(["url"]);
  expectPublicUser(user);
}

/** Adds a category through the API as the admin and returns its stored title. */
export async function addCategory(api: Client, admin: TestUser, title: string) {
  const reply = await api.post<{ _id: string; title: string }>(
    "/api/categories",
    { title },
    { token: admin.token },
  );
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export interface PostInput {
  title?: string;
  category: string;
  description?: string;
  image?: Buffer;
  imageAlt?: string;
  /** DESIGN.md 9: `status` and `publishAt`, sent only when given. */
  status?: string;
  publishAt?: string;
  /** DESIGN.md 10: comma-separated, as a form sends them. */
  tags?: string;
  metaDescription?: string;
  canonicalUrl?: string;
  /** DESIGN.md 11: "send" or "none" (the server's default: "send"). */
  newsletter?: string;
  /** DESIGN.md 11 ("Pages and series"): one of the writer's series, by id. */
  series?: string;
}

/** Creates a post through the API as `author` and returns it; the category must exist. */
export async function addPost(api: Client, author: TestUser, input: PostInput) {
  const reply = await api.form<PostDetail>(
    "POST",
    "/api/posts",
    {
      fields: {
        title: input.title ?? "A post",
        category: input.category,
        description: input.description ?? "Some words about it.",
        ...(input.imageAlt === undefined ? {} : { imageAlt: input.imageAlt }),
        ...(input.status === undefined ? {} : { status: input.status }),
        ...(input.publishAt === undefined ? {} : { publishAt: input.publishAt }),
        ...(input.tags === undefined ? {} : { tags: input.tags }),
        ...(input.metaDescription === undefined ? {} : { metaDescription: input.metaDescription }),
        ...(input.canonicalUrl === undefined ? {} : { canonicalUrl: input.canonicalUrl }),
        ...(input.newsletter === undefined ? {} : { newsletter: input.newsletter }),
        ...(input.series === undefined ? {} : { series: input.series }),
      },
      file: { bytes: input.image ?? (await pngImage()), filename: "photo.png" },
    },
    { token: author.token },
  );
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** Adds a comment through the API. */
export async function addComment(api: Client, author: TestUser, postId: string, text: string) {
  const reply = await api.post<PostComment>(
    "/api/comments",
    { text, postId },
    { token: author.token },
  );
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** Likes (or unlikes) a post through the API and returns the post. */
export async function toggleLikeOf(api: Client, user: TestUser, postId: string) {
  const reply = await api.put<PostDetail>(`/api/posts/like/${postId}`, undefined, {
    token: user.token,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const count = (n: number | string | bigint) => Number(n);

/** Every row of the posts table. */
export async function postRows(server: TestServer) {
  const row = await server.app.deps.db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return count(row.n);
}

/** Like rows of one post, optionally of one user only. */
export async function likeRows(server: TestServer, postId: string, userId?: string) {
  let query = server.app.deps.db
    .selectFrom("likes")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("post_id", "=", postId);
  if (userId !== undefined) query = query.where("user_id", "=", userId);
  return count((await query.executeTakeFirstOrThrow()).n);
}

/** Comment rows of one post. */
export async function commentRows(server: TestServer, postId: string) {
  const row = await server.app.deps.db
    .selectFrom("comments")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("post_id", "=", postId)
    .executeTakeFirstOrThrow();
  return count(row.n);
}

/**
 * Image folders under DATA_DIR/uploads that no post and no profile photo points at: files that
 * nothing will ever delete.
 */
export async function orphanImageFolders(server: TestServer) {
  const { db } = server.app.deps;
  const posts = await db.selectFrom("posts").select("image_key").execute();
  const users = await db.selectFrom("users").select("photo_key").execute();
  const referenced = new Set<string>([
    ...posts.flatMap((post) => (post.image_key === null ? [] : [post.image_key])),
    ...users.flatMap((user) => (user.photo_key === null ? [] : [user.photo_key])),
  ]);
  const folders = new Set(
    (await uploadedFiles(server)).map((file) => file.split("/").slice(0, 2).join("/")),
  );
  return [...folders].filter((folder) => !referenced.has(folder)).sort();
}
