import { PROFILE_PHOTO_MAX_BYTES } from "../../contract/limits.js";
import { ProfileUpdateSchema } from "../../contract/users.js";
import { hashPassword } from "../auth/passwords.js";
import { revokeUserSessions } from "../auth/sessions.js";
import { emailKeyOf, findUserByEmail } from "../auth/auth-service.js";
import type { CoreDeps } from "../deps.js";
import { discardImages, storeImage, swapImage } from "../media/images.js";
import { iso } from "../shared/clock.js";
import { conflict, forbidden, invalid, notFound } from "../shared/errors.js";
import { isId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, canDeleteUser, canEditProfile, canSeeEmail, type Actor } from "./policies.js";
import { listPosts } from "../posts/posts-service.js";
import { presentProfile, presentUserForAdmin, profilePhotoOf } from "./presenters.js";

export const userMessages = {
  notFound: "User not found",
  emailTaken: "Email is already in use",
  lastAdmin: "The last admin account cannot be deleted",
  photoUploaded: "Your profile photo uploaded successfully",
  deleted: "Your profile has been deleted",
  deletedByAdmin: "User has been deleted",
} as const;

export async function findUser(deps: Pick<CoreDeps, "db">, id: string) {
  if (!isId(id)) return undefined;
  return deps.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

async function requireUser(deps: CoreDeps, id: string) {
  const user = await findUser(deps, id);
  if (!user) throw notFound(userMessages.notFound);
  return user;
}

export async function listUsers(deps: CoreDeps, actor: Actor) {
  assertAdmin(actor);
  const users = await deps.db
    .selectFrom("users")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return users.map((user) => presentUserForAdmin(deps, user));
}

export async function countUsers(deps: CoreDeps, actor: Actor) {
  assertAdmin(actor);
  const row = await deps.db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .executeTakeFirstOrThrow();
  return { userCount: Number(row.count) };
}

/** A public profile; the e-mail only for its owner and admins. */
export async function getProfile(
  deps: CoreDeps,
  actor: Actor | undefined,
  id: string,
  options: { withPosts: boolean } = { withPosts: true },
) {
  const user = await requireUser(deps, id);
  return presentProfile(deps, user, {
    withEmail: canSeeEmail(actor, user.id),
    posts: options.withPosts ? await listPosts(deps, { userId: user.id }) : [],
  });
}

/**
 * The site owner shown on the home page (SPEC.md 1): the earliest admin account, without posts.
 */
export async function getSiteOwner(deps: CoreDeps) {
  const owner = await deps.db
    .selectFrom("users")
    .selectAll()
    .where("is_admin", "=", 1)
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return owner ? presentProfile(deps, owner, { withEmail: false, posts: [] }) : undefined;
}

/** One page of a user's posts, newest first. */
export async function listUserPosts(deps: CoreDeps, id: string, pageNumber: number) {
  const user = await requireUser(deps, id);
  return listPosts(deps, { userId: user.id }, pageNumber);
}

/**
 * Edits a profile. A new password ends the owner's other sessions; the one making the change
 * stays signed in.
 */
export async function updateProfile(
  deps: CoreDeps,
  actor: Actor,
  sessionId: string,
  id: string,
  body: unknown,
) {
  const user = await requireUser(deps, id);
  if (!canEditProfile(actor, user.id)) throw forbidden("You can only edit your own profile");
  const input = validate(ProfileUpdateSchema, body);
  const emailKey = emailKeyOf(input.email);
  if (emailKey !== user.email_key && (await findUserByEmail(deps, input.email))) {
    throw conflict(userMessages.emailTaken);
  }
  const changes = {
    username: input.username,
    email: input.email,
    email_key: emailKey,
    bio: input.bio,
    social_media: JSON.stringify(input.socialMedia),
    updated_at: iso(deps.clock()),
    ...(input.password ? { password_hash: await hashPassword(input.password) } : {}),
  };
  try {
    await deps.db.updateTable("users").set(changes).where("id", "=", user.id).execute();
  } catch (error) {
    const owner = await findUserByEmail(deps, input.email);
    if (owner && owner.id !== user.id) throw conflict(userMessages.emailTaken);
    throw error;
  }
  if (input.password) await revokeUserSessions(deps.db, user.id, sessionId);
  if (emailKey !== user.email_key) {
    // Reset links mailed to the old address must not outlive the change.
    await deps.db
      .deleteFrom("verification_tokens")
      .where("user_id", "=", user.id)
      .where("kind", "=", "password")
      .execute();
  }
  return presentProfile(
    deps,
    { ...user, ...changes },
    { withEmail: true, posts: await listPosts(deps, { userId: user.id }) },
  );
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
  const swapped = await swapImage(deps, photoKey, {
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
  });
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
  const imageKeys = await deps.db.transaction().execute(async (trx) => {
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
        .executeTakeFirstOrThrow();
      if (Number(admins.count) <= 1) throw invalid(userMessages.lastAdmin);
    }
    const posts = await trx
      .selectFrom("posts")
      .select("image_key")
      .where("user_id", "=", user.id)
      .execute();
    await trx.deleteFrom("users").where("id", "=", user.id).execute();
    return [user.photo_key, ...posts.map((post) => post.image_key)];
  });
  await discardImages(deps, imageKeys);
  return { message: actor.id === user.id ? userMessages.deleted : userMessages.deletedByAdmin };
}
