import { z } from "./zod.js";
import { PASSWORD_MAX } from "./limits.js";
import { PASSKEY_NAME_MAX, securityMessages } from "./security-messages.js";

// Account security (DESIGN.md 10, "Account security"; decision 024): two-factor sign-in with an
// authenticator app, passkeys, and the list of signed-in devices.

export * from "./security-messages.js";

const m = securityMessages;

/** `POST /api/auth/2fa/enable`: the first code the app shows. */
export const TwoFactorEnableSchema = z.object({
  code: z.string({ error: m.codeInvalid }).trim().min(1, m.codeInvalid).max(20, m.codeInvalid),
});

/** `POST /api/auth/2fa/disable`. */
export const TwoFactorDisableSchema = z.object({
  currentPassword: z
    .string({ error: m.currentPasswordRequired })
    .min(1, m.currentPasswordRequired)
    .max(PASSWORD_MAX, m.currentPasswordWrong),
});

/**
 * `DELETE /api/auth/passkeys/:id`: the current password, which a sign-in in the last 15 minutes
 * stands in for (no body then).
 */
export const PasskeyRemoveSchema = z.object({
  currentPassword: z
    .string({ error: m.currentPasswordRequired })
    .max(PASSWORD_MAX, m.currentPasswordWrong)
    .optional(),
});

/** The second step of a sign-in: a code from the app, or one of the recovery codes. */
export const SecondFactorSchema = z.object({
  code: z.string().trim().max(20).optional(),
  recoveryCode: z.string().trim().max(40).optional(),
});
export type SecondFactorInput = z.output<typeof SecondFactorSchema>;

/** `POST /api/auth/passkeys/register/options`. */
export const PasskeyOptionsSchema = z.object({
  name: z
    .string({ error: m.passkeyNameTooLong })
    .trim()
    .max(PASSKEY_NAME_MAX, m.passkeyNameTooLong)
    .optional(),
});

/**
 * `.../register/verify` and `.../login/verify`: the browser's answer (the WebAuthn JSON form, as
 * @simplewebauthn/browser gives it), bare or with the `challengeId` its options came with.
 */
export const PasskeyResponseSchema = z.object({
  id: z.string({ error: m.passkeyInvalid }).min(1, m.passkeyInvalid).max(1024, m.passkeyInvalid),
  rawId: z.string({ error: m.passkeyInvalid }).max(1024, m.passkeyInvalid),
  type: z.literal("public-key", { error: m.passkeyInvalid }),
  response: z.record(z.string(), z.unknown(), { error: m.passkeyInvalid }),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  authenticatorAttachment: z.string().optional(),
  challengeId: z.string().max(40).optional(),
});
