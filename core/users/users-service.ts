import { sql, type Kysely } from "kysely";
import { integrationMessages } from "../../contract/integrations.js";
import { PROFILE_PHOTO_MAX_BYTES } from "../../contract/limits.js";
import {
  profileMessages,
  profileUpdateSchema,
  UserListQuerySchema,
  USERS_PAGE_SIZE,
  UserSearchSchema,
} from "../../contract/users.js";
import { compiledOnce } from "../../db/compiled-once.js";
import type { Database, UsersTable } from "../../db/schema.js";
import { countLoginAttempt } from "../auth/login-attempts.js";
import { hashPassword, verifyPassword } from "../auth/passwords.js";
import { endPendingSignIns, notifySecurityChange } from "../auth/second-factor.js";
import { revokeUserSessions, signedInRecently, type ChangingSession } from "../auth/sessions.js";
import { pendingEmailChange } from "../auth/verification-tokens.js";
import {
  authMessages,
  cancelEmailChange,
  emailKeyOf,
  findUserByEmail,
  requestEmailChange,
} from "../auth/auth-service.js";
import { recordAudit } from "../audit/audit-log.js";
import type { CoreDeps } from "../deps.js";
import { followFacts } from "../follows/follows-service.js";
import { discardImages, storeImage, swapImage } from "../media/images.js";
import { bodyImageKeysOfUser } from "../posts/body-images.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { recordEvent } from "../events/events.js";
import { conflict, forbidden, invalid, notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { likeContaining } from "../shared/like-pattern.js";
import { rowWindow } from "../shared/row-window.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, canDeleteUser, canEditProfile, canSeeEmail, type Actor } from "./policies.js";
import { listPosts } from "../posts/posts-service.js";
import { presentProfile, presentUserForAdmin, profilePhotoOf } from "./presenters.js";

export const userMessages = {
  notFound: "User not found",
  emailTaken: authMessages.emailInUse,
  lastAdmin: "The last admin account cannot be deleted",
  photoUploaded: "Your profile photo uploaded successfully",
  deleted: "Your profile has been deleted",
  deletedByAdmin: "User has been deleted",
} as const;

/** Read by a post page (its author box) and a profile. */
const userById = compiledOnce<Database>();

export async function findUser(deps: Pick<CoreDeps, "db">, id: string) {
  if (!isId(id)) return undefined;
  const [user] = await userById(deps.db, { parameters: [id] }, () =>
    deps.db.selectFrom("users").selectAll().where("id", "=", id),
  );
  return user;
}

/** The account with this id, or 404. */
export async function requireUser(deps: CoreDeps, id: string) {
  const user = await findUser(deps, id);
  if (!user) throw notFound(userMessages.notFound);
  return user;
}

/** The accounts whose username or e-mail contains `q` (any case): every one when it is empty. */
function usersMatching(db: Kysely<Database>, q: string | undefined) {
  const query = db.selectFrom("users");
  if (!q) return query;
  const text = q.toLowerCase();
  return query.where((eb) =>
    eb.or([
      likeContaining(sql<string>`lower(${sql.ref("users.username")})`, text),
      // The e-mail's key is the address lowercased.
      likeContaining(sql.ref("users.email_key"), text),
    ]),
  );
}

/**
 * The admin's user list, newest first: every account, or those `?q=` finds, and with
 * `?pageNumber=n` one page of USERS_PAGE_SIZE (the dashboard's table).
 */
export async function listUsers(deps: CoreDeps, actor: Actor, query: unknown = {}) {
  assertAdmin(actor);
  const { q, pageNumber } = validate(UserListQuerySchema, query);
  let rows = usersMatching(deps.db, q)
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc");
  if (pageNumber !== undefined) {
    const { limit, offset } = rowWindow(pageNumber, USERS_PAGE_SIZE);
    rows = rows.limit(limit).offset(offset);
  }
  const users = await rows.execute();
  return users.map((user) => presentUserForAdmin(deps, user));
}

/** How many accounts there are, or how many `?q=` finds. */
export async function countUsers(deps: CoreDeps, actor: Actor, query: unknown = {}) {
  assertAdmin(actor);
  const { q } = validate(UserSearchSchema, query);
  const row = await usersMatching(deps.db, q)
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .executeTakeFirstOrThrow();
  return { userCount: Number(row.count) };
}

/** A public profile without its follow counts (the author box under a post). */
export async function getProfileBasics(
  deps: CoreDeps,
  actor: Actor | undefined,
  id: string,
  options: { withPosts: boolean } = { withPosts: true },
) {
  const user = await requireUser(deps, id);
  return {
    ...presentProfile(deps, user, {
      withEmail: canSeeEmail(actor, user.id),
      posts: options.withPosts ? await listPosts(deps, { userId: user.id }) : [],
    }),
    ...(actor && canEditProfile(actor, user.id) ? await pendingEmailOf(deps, user.id) : {}),
  };
}

/**
 * A public profile; the e-mail only for its owner and admins. With its follower and following
 * counts, and `followedByYou` for a signed-in viewer (decision 016).
 */
export async function getProfile(
  deps: CoreDeps,
  actor: Actor | undefined,
  id: string,
  options: { withPosts: boolean } = { withPosts: true },
) {
  const profile = await getProfileBasics(deps, actor, id, options);
  return { ...profile, ...(await followFacts(deps, actor, profile._id)) };
}

/**
 * The account a public author page (`/@username`) names: its username regardless of case. Names
 * are not unique (SPEC.md keys accounts by e-mail): where several share one, the oldest account
 * holds the address (decision 028).
 */
export async function findAuthorByUsername(deps: Pick<CoreDeps, "db">, username: string) {
  const row = await deps.db
    .selectFrom("users")
    .select("id")
    .where(sql<string>`lower(username)`, "=", username.toLowerCase())
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

const siteOwner = compiledOnce<Database>();

/**
 * The site owner shown on the home page (SPEC.md 1): the earliest admin account, without posts.
 */
export async function getSiteOwner(deps: CoreDeps) {
  // Binds its constants: is_admin = 1, limit 1.
  const [owner] = await siteOwner(deps.db, { parameters: [1, 1] }, () =>
    deps.db
      .selectFrom("users")
      .selectAll()
      .where("is_admin", "=", 1)
      .orderBy("created_at")
      .orderBy("id")
      .limit(1),
  );
  return owner ? presentProfile(deps, owner, { withEmail: false, posts: [] }) : undefined;
}

/** One page of a user's posts, newest first. */
export async function listUserPosts(deps: CoreDeps, id: string, pageNumber: number) {
  const user = await requireUser(deps, id);
  return listPosts(deps, { userId: user.id }, pageNumber);
}

export { RECENT_SIGN_IN_MS } from "../auth/sessions.js";

/**
 * Asks who is there before the e-mail or the password changes: the current password, unless this
 * session signed in within RECENT_SIGN_IN_MS. Wrong guesses count against the account's sign-in
 * attempts, so a stolen session cannot be used to guess the password either.
 */
async function confirmIdentity(
  deps: CoreDeps,
  user: UsersTable,
  session: ChangingSession,
  currentPassword: string | undefined,
) {
  if (signedInRecently(deps.clock(), session)) return;
  if (!currentPassword) {
    const message = profileMessages.currentPasswordRequired;
    throw invalid(message, { currentPassword: message });
  }
  await countLoginAttempt(deps.loginAttempts, user.email_key);
  if (!(await verifyPassword(user.password_hash, currentPassword))) {
    const message = profileMessages.currentPasswordWrong;
    throw invalid(message, { currentPassword: message });
  }
  await deps.loginAttempts.clear(user.email_key);
}

/**
 * Edits a profile. A new e-mail takes effect only once its owner opens the link mailed to it (the
 * old address is told); a new password ends the owner's other sessions, and the one making the
 * change stays signed in. Either needs the current password unless the session is fresh.
 */
export async function updateProfile(
  deps: CoreDeps,
  actor: Actor,
  /** The session making the change; none for an API token, which may not change the e-mail or password. */
  session: ChangingSession | undefined,
  id: string,
  body: unknown,
) {
  const user = await requireUser(deps, id);
  if (!canEditProfile(actor, user.id)) throw forbidden("You can only edit your own profile");
  const input = validate(profileUpdateSchema(user.username), body);
  const emailChanges = emailKeyOf(input.email) !== user.email_key;
  if (emailChanges || input.password) {
    if (!session) throw forbidden(integrationMessages.notWithToken);
    await confirmIdentity(deps, user, session, input.currentPassword);
  }
  if (emailChanges) {
    if (await findUserByEmail(deps, input.email)) throw conflict(userMessages.emailTaken);
    await requestEmailChange(deps, user, input.email);
  } else if (input.password) {
    // A new password ends a change someone else may have asked for (the old address was told).
    await cancelEmailChange(deps, user.id);
  }
  const socialMedia = JSON.stringify(input.socialMedia);
  // Only the name, the bio and the links show on pages others see.
  const visible =
    input.username !== user.username || input.bio !== user.bio || socialMedia !== user.social_media;
  const changes = {
    username: input.username,
    // Only a change of case takes effect at once: it is the same address.
    ...(emailChanges ? {} : { email: input.email.trim() }),
    bio: input.bio,
    social_media: socialMedia,
    updated_at: iso(deps.clock()),
    ...(input.password ? { password_hash: await hashPassword(input.password) } : {}),
  };
  const update = () =>
    deps.db.updateTable("users").set(changes).where("id", "=", user.id).execute();
  await (visible ? changingContent(deps, update) : update());
  if (input.password && session) {
    await revokeUserSessions(deps.db, user.id, session.sessionId);
    await endPendingSignIns(deps.db, user.id);
    await notifySecurityChange(deps, user, "password-changed");
  }
  return {
    ...presentProfile(
      deps,
      { ...user, ...changes },
      { withEmail: true, posts: await listPosts(deps, { userId: user.id }) },
    ),
    ...(await pendingEmailOf(deps, user.id)),
    // The same profile GET answers, follow counts included.
    ...(await followFacts(deps, actor, user.id)),
  };
}

/** `pendingEmail`: the address a change waits to confirm, shown to the account's owner only. */
async function pendingEmailOf(deps: CoreDeps, userId: string): Promise<{ pendingEmail?: string }> {
  const pendingEmail = await pendingEmailChange(deps, userId);
  return pendingEmail ? { pendingEmail } : {};
}

/** Stores a new photo for the signed-in user and removes the files of the old one. */
export async function setProfilePhoto(
  deps: CoreDeps,
  actor: Actor,
  bytes: Buffer | undefined,
  signal?: AbortSignal,
) {
  if (!bytes || bytes.length === 0) throw invalid("image is required");
  const user = await requireUser(deps, actor.id);
  const photoKey = await storeImage(deps.storage, bytes, PROFILE_PHOTO_MAX_BYTES, signal);
  const swapped = await changingContent(deps, () =>
    swapImage(deps, photoKey, {
      currentKey: async () => (await findUser(deps, user.id))?.photo_key,
      setKeyIf: async (expected) => {
        const result = await deps.db
          .updateTable("users")
          .set({ photo_key: photoKey, updated_at: iso(deps.clock()) })
          .where("id", "=", user.id)
          .where((eb) =>
            expected === null ? eb("photo_key", "is", null) : eb("photo_key", "=", expected),
          )
          .executeTakeFirst();
        return result.numUpdatedRows === 1n;
      },
    }),
  );
  if (!swapped) throw notFound(userMessages.notFound);
  return { profilePhoto: profilePhotoOf(deps, photoKey), message: userMessages.photoUploaded };
}

/**
 * Deletes an account with everything it owns: posts (with their comments, likes and images), its
 * comments, likes, sessions, tokens (all by foreign-key cascade) and its photo.
 */
export async function deleteUser(deps: CoreDeps, actor: Actor, id: string) {
  const user = await requireUser(deps, id);
  if (!canDeleteUser(actor, user.id)) throw forbidden("You can only delete your own profile");
  const imageKeys = await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      if (user.is_admin === 1) {
        // Lock the admin rows first (a no-op update works on both engines), so two admins deleting
        // themselves at once are counted one after the other and one admin always remains.
        await trx
          .updateTable("users")
          .set((eb) => ({ is_admin: eb.ref("is_admin") }))
          .where("is_admin", "=", 1)
          .execute();
        const admins = await trx
          .selectFrom("users")
          .select((eb) => eb.fn.countAll<number | string>().as("count"))
          .where("is_admin", "=", 1)
          // A suspended admin cannot step in: only active ones count.
          .where("suspended_at", "is", null)
          .executeTakeFirstOrThrow();
        if (Number(admins.count) <= 1) throw invalid(userMessages.lastAdmin);
      }
      const posts = await trx
        .selectFrom("posts")
        .select(["id", "image_key", "status"])
        .where("user_id", "=", user.id)
        .execute();
      const bodyImageKeys = await bodyImageKeysOfUser(trx, user.id);
      // Its uploads that no post claimed have no post to go with: their rows go here.
      await trx
        .deleteFrom("body_images")
        .where("uploader_id", "=", user.id)
        .where("post_id", "is", null)
        .where("page_id", "is", null)
        .execute();
      await trx.deleteFrom("users").where("id", "=", user.id).execute();
      // Its published posts left the site with it (drafts were never news).
      for (const post of posts) {
        if (post.status === "published") {
          await recordEvent(trx, deps, { type: "post.deleted", postId: post.id });
        }
      }
      if (actor.id !== user.id) {
        await recordAudit(trx, deps, actor, "user.delete", {
          kind: "user",
          id: user.id,
          summary: user.username,
        });
      }
      return [user.photo_key, ...posts.map((post) => post.image_key), ...bodyImageKeys];
    }),
  );
  await discardImages(deps, imageKeys);
  return { message: actor.id === user.id ? userMessages.deleted : userMessages.deletedByAdmin };
}
