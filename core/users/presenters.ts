import type { SocialLink } from "../../contract/users.js";
import type { UsersTable } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { imageUrl } from "../media/images.js";

type Presenting = Pick<CoreDeps, "storage" | "site">;

export interface PublicUser {
  _id: string;
  id: string;
  username: string;
  profilePhoto: { url: string };
}

export function profilePhotoOf(deps: Presenting, photoKey: string | null) {
  return {
    url: photoKey ? imageUrl(deps.storage, photoKey, "sm") : deps.site.defaultAvatarUrl,
  };
}

/** The only shape of a user that appears inside other entities: no e-mail, no flags. */
export function presentPublicUser(
  deps: Presenting,
  user: Pick<UsersTable, "id" | "username" | "photo_key">,
): PublicUser {
  return {
    _id: user.id,
    id: user.id,
    username: user.username,
    profilePhoto: profilePhotoOf(deps, user.photo_key),
  };
}

export function socialLinksOf(user: Pick<UsersTable, "social_media">): SocialLink[] {
  const parsed: unknown = JSON.parse(user.social_media);
  return Array.isArray(parsed) ? (parsed as SocialLink[]) : [];
}

export function presentProfile(
  deps: Presenting,
  user: UsersTable,
  options: { withEmail: boolean; posts: unknown[] },
) {
  return {
    ...presentPublicUser(deps, user),
    bio: user.bio,
    socialMedia: socialLinksOf(user),
    posts: options.posts,
    createdAt: user.created_at,
    ...(options.withEmail ? { email: user.email } : {}),
  };
}

/** What an admin sees in the users table. */
export function presentUserForAdmin(deps: Presenting, user: UsersTable) {
  return {
    ...presentPublicUser(deps, user),
    email: user.email,
    bio: user.bio,
    isAdmin: user.is_admin === 1,
    isVerified: user.is_verified === 1,
    suspended: user.suspended_at !== null,
    createdAt: user.created_at,
  };
}

/** The answer to a successful login: the one response that carries a token. */
export function presentSignedIn(deps: Presenting, user: UsersTable, token: string) {
  return { ...presentPublicUser(deps, user), isAdmin: user.is_admin === 1, token };
}
