import {
  PasskeyOptionsSchema,
  PasskeyRemoveSchema,
  PasskeyResponseSchema,
  TwoFactorDisableSchema,
  TwoFactorEnableSchema,
} from "../../../contract/account-security.js";
import {
  PasskeyListSchema,
  PasskeyOptionsAnswerSchema,
  PasskeySchema,
  RecoveryCodesSchema,
  SessionListSchema,
  SignedInSchema,
  TwoFactorSetupSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const tag = "account security";

/** The API reference's entries for server/api/auth/security-routes.ts. */
export const securityDocs = {
  setup: {
    summary: "Set up two-factor sign-in",
    description:
      "A new secret for an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s). Nothing changes " +
      "until `POST /api/auth/2fa/enable` confirms a code; asking again replaces the secret.",
    access: "session",
    tag,
    response: { status: 200, description: "The secret", schema: TwoFactorSetupSchema },
    errors: { 409: "Two-factor sign-in is already on" },
  },
  enable: {
    summary: "Turn two-factor sign-in on",
    description:
      "With a code from the app set up by the last setup call. Answers ten single-use recovery " +
      "codes, shown this once. The owner is mailed.",
    access: "session",
    tag,
    body: TwoFactorEnableSchema,
    response: { status: 200, description: "On", schema: RecoveryCodesSchema },
    errors: {
      400: "A wrong code, or no setup first",
      409: "Two-factor sign-in is already on",
    },
  },
  disable: {
    summary: "Turn two-factor sign-in off",
    description:
      "Needs the current password (a wrong one counts as a failed sign-in). The recovery codes " +
      "stop working; the owner is mailed.",
    access: "session",
    tag,
    body: TwoFactorDisableSchema,
    response: { status: 204, description: "Off" },
    errors: { 400: "A wrong password, or two-factor sign-in is not on" },
  },
  registerOptions: {
    summary: "Start adding a passkey",
    description:
      "Options for the browser's `navigator.credentials.create` (as @simplewebauthn/browser's " +
      "`startRegistration` takes them), valid five minutes, and the challenge's id.",
    access: "session",
    tag,
    body: PasskeyOptionsSchema,
    response: { status: 200, description: "Options", schema: PasskeyOptionsAnswerSchema },
    errors: {
      400: "A name too long, or the site is served at an IP address (passkeys need a domain name)",
    },
  },
  registerVerify: {
    summary: "Add a passkey",
    description:
      "The browser's RegistrationResponseJSON, with the `challengeId` of its options (or without: " +
      "the signed challenge names them). Each challenge answers once. The owner is mailed.",
    access: "session",
    tag,
    body: PasskeyResponseSchema,
    response: { status: 201, description: "Added", schema: PasskeySchema },
    errors: {
      400:
        "Not an answer to one of this account's live challenges, from this site's origin, or " +
        "the site is served at an IP address",
      409: "The passkey is registered already",
    },
  },
  loginOptions: {
    summary: "Start signing in with a passkey",
    description:
      "Options for `navigator.credentials.get` with no credentials listed: the browser offers the " +
      "passkeys it holds for this site.",
    access: "anyone",
    tag,
    response: { status: 200, description: "Options", schema: PasskeyOptionsAnswerSchema },
    errors: { 400: "The site is served at an IP address (passkeys need a domain name)" },
  },
  loginVerify: {
    summary: "Sign in with a passkey",
    description:
      "The browser's AuthenticationResponseJSON (with `challengeId`, or without). Answers as " +
      "`POST /api/auth/login` does; no password or two-factor code is asked.",
    access: "anyone",
    tag,
    body: PasskeyResponseSchema,
    response: { status: 200, description: "Signed in", schema: SignedInSchema },
    errors: {
      400:
        "An unknown passkey, not an answer to a live sign-in challenge from this site, or the " +
        "site is served at an IP address",
      403: "The account is not verified yet or is suspended",
    },
  },
  listPasskeys: {
    summary: "Your passkeys",
    access: "session",
    tag,
    response: { status: 200, description: "Oldest first", schema: PasskeyListSchema },
  },
  removePasskey: {
    summary: "Remove a passkey",
    description:
      "Needs the current password (a wrong one counts as a failed sign-in), or a sign-in in the " +
      "last 15 minutes and no body. The owner is mailed.",
    access: "session",
    tag,
    params: { id: "The passkey's id" },
    body: PasskeyRemoveSchema,
    response: { status: 204, description: "Removed" },
    errors: {
      400: "No current password after the first 15 minutes of a sign-in, or a wrong one",
      404: "Not one of your passkeys",
    },
  },
  listSessions: {
    summary: "Your signed-in devices",
    description: "Live sessions, this one first, then by when they were last used.",
    access: "session",
    tag,
    response: { status: 200, description: "The sessions", schema: SessionListSchema },
  },
  endSession: {
    summary: "Sign a device out",
    description: "Its token stops working at once, on every instance.",
    access: "session",
    tag,
    params: { id: "The session's id" },
    response: { status: 204, description: "Signed out" },
    errors: { 404: "Not one of your sessions" },
  },
  endOthers: {
    summary: "Sign out everywhere else",
    description: "Every session of the account but the one making this call ends.",
    access: "session",
    tag,
    response: { status: 204, description: "Signed out" },
  },
} satisfies Record<string, RouteDocs>;
