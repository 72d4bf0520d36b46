import { OwnPostsQuerySchema, PageQuerySchema } from "../../../contract/content.js";
import { PROFILE_PHOTO_MAX_BYTES } from "../../../contract/limits.js";
import { SuspendSchema } from "../../../contract/moderation.js";
import {
  AdminUserListSchema,
  MessageSchema,
  PostListSchema,
  ProfilePhotoSchema,
  ProfileSchema,
  SuspensionSchema,
  UserCountSchema,
} from "../../../contract/responses.js";
import { ProfileUpdateSchema } from "../../../contract/users.js";
import { imageForm, type RouteDocs } from "../openapi/route-docs.js";

const userId = { id: "The account's id" };
const notFound = "No account with that id";

/** The API reference's entries for server/api/users/routes.ts. */
export const userDocs = {
  count: {
    summary: "Count the accounts",
    access: "admin",
    response: { status: 200, description: "The number of accounts", schema: UserCountSchema },
  },
  list: {
    summary: "List every account",
    description: "With e-mail and flags: only admins see them.",
    access: "admin",
    response: { status: 200, description: "Every account", schema: AdminUserListSchema },
  },
  profile: {
    summary: "Read a profile",
    description: "With the account's published posts. The e-mail only to its owner and admins.",
    access: "anyone-or-signed-in",
    params: userId,
    response: { status: 200, description: "The profile", schema: ProfileSchema },
    errors: { 404: notFound },
  },
  ownPosts: {
    summary: "List your own drafts or scheduled posts",
    access: "signed-in",
    query: OwnPostsQuerySchema,
    response: { status: 200, description: "6 a page, newest first", schema: PostListSchema },
  },
  posts: {
    summary: "List an account's published posts, a page at a time",
    access: "anyone",
    params: userId,
    query: PageQuerySchema.pick({ pageNumber: true }),
    response: { status: 200, description: "6 a page, newest first", schema: PostListSchema },
    errors: { 404: notFound },
  },
  update: {
    summary: "Edit your profile",
    description:
      "An empty or absent `password` keeps the current one. Changing the e-mail or the password " +
      "asks for `currentPassword` unless the session signed in within 15 minutes; a new e-mail " +
      "waits for confirmation by mail (`pendingEmail`). An API token may change the rest, not the " +
      "e-mail or password (403).",
    access: "signed-in",
    params: userId,
    body: ProfileUpdateSchema,
    response: { status: 200, description: "The profile as it is now", schema: ProfileSchema },
    errors: {
      403: "The caller is not the account's owner, or an API token changes the e-mail or password",
      404: notFound,
      409: "The e-mail address belongs to another account",
    },
  },
  photo: {
    summary: "Set your profile photo",
    access: "signed-in",
    form: imageForm(PROFILE_PHOTO_MAX_BYTES),
    response: { status: 200, description: "The new photo", schema: ProfilePhotoSchema },
    errors: { 503: "Too many images are being processed: try again in a moment" },
  },
  suspend: {
    summary: "Suspend or restore an account",
    description:
      'A suspended account\'s sessions end and its sign-in answers 403 "This account is suspended" ' +
      "with `reason` and `suspendedUntil` (null when not given). A suspension may carry a `reason` " +
      "(shown to the member, at most 500 characters) and `until` (an ISO time to come), after " +
      "which it lifts by itself; the member is mailed both. A restore clears them.",
    access: "admin",
    params: userId,
    body: SuspendSchema,
    response: { status: 200, description: "Done", schema: SuspensionSchema },
    errors: {
      400: "Invalid input, or the admin's own account",
      404: notFound,
      409: "The last active admin cannot be suspended",
    },
  },
  remove: {
    summary: "Delete an account",
    description: "Its owner or an admin; its posts, comments, likes and images go with it.",
    access: "signed-in",
    params: userId,
    response: { status: 200, description: "Deleted", schema: MessageSchema },
    errors: {
      403: "The caller is neither the account's owner nor an admin, or deletes its own account with an API token",
      404: notFound,
    },
  },
} satisfies Record<string, RouteDocs>;
