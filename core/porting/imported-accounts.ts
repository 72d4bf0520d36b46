import { createHash, randomBytes } from "node:crypto";
import { EMAIL_PATTERN } from "../../contract/auth.js";
import { BIO_MAX, EMAIL_MAX, USERNAME_MAX } from "../../contract/limits.js";
import { createUser, emailKeyOf } from "../auth/auth-service.js";
import type { CoreDeps } from "../deps.js";
import { actorOf, type Actor } from "../users/policies.js";
import type { BlogImportReport } from "./blog-import.js";

const PLACEHOLDER_DOMAIN = "imported.invalid";

/**
 * The accounts an import gives posts, pages and comments to (decision 019): found by address, or
 * made unverified with a password nobody knows (the account opens through "Reset Password").
 */
export function importedAccounts(deps: CoreDeps, report: BlogImportReport) {
  const accounts = new Map<string, Actor>();
  let commenters = 0;

  /**
   * The account of an address, made (unverified, with a password nobody knows) when new; a
   * commenter's is always a placeholder of their name (`commenter`: no note of its own).
   */
  async function accountFor(
    name: string,
    email: string,
    bio: string,
    ref: string,
    commenter = false,
  ) {
    const usable = EMAIL_PATTERN.test(email) && email.length <= EMAIL_MAX;
    const username = usernameFrom(name);
    const address = usable
      ? email
      : `${username.toLowerCase()}-${shortHash(ref)}@${PLACEHOLDER_DOMAIN}`;
    const key = emailKeyOf(address);
    const known = accounts.get(key);
    if (known) return known;
    const existing = await deps.db
      .selectFrom("users")
      .selectAll()
      .where("email_key", "=", key)
      .executeTakeFirst();
    if (existing) {
      if (!address.endsWith(`@${PLACEHOLDER_DOMAIN}`)) report.existingAuthors += 1;
      const actor = actorOf(existing);
      accounts.set(key, actor);
      return actor;
    }
    const user = await createUser(deps, {
      username,
      email: address,
      // Nobody ever knows it: the account opens through "Reset Password" (decision 019).
      password: `${randomBytes(24).toString("base64url")}aA1!`,
      isVerified: false,
    });
    if (bio.trim() !== "")
      await deps.db
        .updateTable("users")
        .set({ bio: bio.trim().slice(0, BIO_MAX) })
        .where("id", "=", user.id)
        .execute();
    if (commenter) commenters += 1;
    else if (!usable)
      report.notes.push(
        `${name}: no usable e-mail address in the export, so the account has ${address} until an admin changes it`,
      );
    report.imported.authors += 1;
    const actor = actorOf(user);
    accounts.set(key, actor);
    return actor;
  }

  /** The report's word on the commenters' placeholder accounts, when any were made. */
  const commentersNote = () =>
    commenters > 0
      ? `${String(commenters)} commenter(s) got a placeholder account under their name (@${PLACEHOLDER_DOMAIN}): the address typed into a comment form proves nothing, so no comment went to an account by it`
      : undefined;

  return { accountFor, commentersNote };
}

function usernameFrom(name: string) {
  const letters = name
    .normalize("NFKD")
    .replace(/[^a-zA-Z0-9]/g, "")
    .slice(0, USERNAME_MAX);
  return letters === "" ? "author" : letters;
}

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);
