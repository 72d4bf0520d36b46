import type { Kysely, Migration } from "kysely";

// Account security (DESIGN.md 10, "Account security"; decision 024):
// - users.totp_secret: the authenticator app's shared secret (base32) once two-factor sign-in is
//   on; totp_pending_secret: one being set up, not yet confirmed by a code; totp_last_step: the
//   30-second step of the last code accepted, so a code works once.
// - recovery_codes: SHA-256 of each single-use code, and when it was used.
// - passkeys: WebAuthn credentials (id and COSE public key as base64url, the signature counter).
// - webauthn_challenges: a challenge handed out with passkey options, used once, minutes long.
// - sessions.last_seen_at, sessions.device: when a session was last used (to the nearest few
//   minutes) and "Firefox on Linux" read from the user agent at sign-in; the agent is not kept.
// - sessions.second_factor: 1 when the session was opened with more than a password (a code, a
//   recovery code or a passkey), or its owner set one up in it.
// - site_settings.require_admin_second_factor: admins act as admins only in sessions opened with
//   two-factor sign-in or a passkey.
export const accountSecurity: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("totp_secret", "text").execute();
    await db.schema.alterTable("users").addColumn("totp_pending_secret", "text").execute();
    await db.schema.alterTable("users").addColumn("totp_last_step", "integer").execute();
    await db.schema
      .createTable("recovery_codes")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("code_hash", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("used_at", "text")
      .execute();
    await db.schema
      .createIndex("recovery_codes_user_id")
      .on("recovery_codes")
      .column("user_id")
      .execute();
    await db.schema
      .createTable("passkeys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("credential_id", "text", (c) => c.notNull().unique())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("counter", "bigint", (c) => c.notNull())
      .addColumn("transports", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("last_used_at", "text")
      .execute();
    await db.schema.createIndex("passkeys_user_id").on("passkeys").column("user_id").execute();
    await db.schema
      .createTable("webauthn_challenges")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("challenge", "text", (c) => c.notNull())
      .addColumn("name", "text")
      .addColumn("expires_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("webauthn_challenges_expires_at")
      .on("webauthn_challenges")
      .column("expires_at")
      .execute();
    await db.schema.alterTable("sessions").addColumn("last_seen_at", "text").execute();
    await db.schema.alterTable("sessions").addColumn("device", "text").execute();
    await db.schema
      .alterTable("sessions")
      .addColumn("second_factor", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("site_settings")
      .addColumn("require_admin_second_factor", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("site_settings").dropColumn("require_admin_second_factor").execute();
    await db.schema.alterTable("sessions").dropColumn("second_factor").execute();
    await db.schema.alterTable("sessions").dropColumn("device").execute();
    await db.schema.alterTable("sessions").dropColumn("last_seen_at").execute();
    await db.schema.dropTable("webauthn_challenges").execute();
    await db.schema.dropTable("passkeys").execute();
    await db.schema.dropTable("recovery_codes").execute();
    await db.schema.alterTable("users").dropColumn("totp_last_step").execute();
    await db.schema.alterTable("users").dropColumn("totp_pending_secret").execute();
    await db.schema.alterTable("users").dropColumn("totp_secret").execute();
  },
};
