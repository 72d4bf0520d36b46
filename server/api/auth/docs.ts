import { LoginSchema, RegisterSchema } from "../../../contract/auth.js";
import {
  MessageSchema,
  SignedInSchema,
  SuspendedErrorSchema,
} from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/auth/routes.ts. */
export const authDocs = {
  register: {
    summary: "Sign up",
    description:
      "Creates an unverified account and mails a verification link. Extra `isAdmin` and " +
      "`isVerified` fields are accepted and ignored.",
    access: "anyone",
    body: RegisterSchema,
    response: {
      status: 201,
      description: "Account created; the mail is on its way",
      schema: MessageSchema,
    },
    errors: { 409: "The e-mail address already has an account", 503: "The mail could not be sent" },
  },
  login: {
    summary: "Sign in",
    description:
      "Answers the bearer token the other calls take. With two-factor sign-in on, the right " +
      "password alone is 401 with `twoFactorRequired: true`; send it again with `code` (from the " +
      "app) or `recoveryCode`.",
    access: "anyone",
    body: LoginSchema,
    response: { status: 200, description: "Signed in", schema: SignedInSchema },
    errors: {
      400: "Invalid input, or a wrong e-mail or password",
      401: "Two-factor sign-in is on: a code is required (`twoFactorRequired: true`), or the one sent is wrong or used",
      403:
        "The account is not verified yet (the mail is sent again) or is suspended (then with " +
        "`reason` and `suspendedUntil`, each null when not given)",
      429: "Too many attempts from this address or on this account",
      503: "The verification mail could not be sent",
    },
    errorAnswers: { 403: SuspendedErrorSchema },
  },
  logout: {
    summary: "Sign out",
    description: "The token stops working.",
    access: "session",
    response: { status: 204, description: "Signed out" },
  },
  verify: {
    summary: "Verify an e-mail address",
    description:
      "The link in the verification mail. A browser (Accept: text/html) gets the site's page, " +
      "which makes this call.",
    access: "anyone",
    params: { userId: "The account's id", token: "The token of the mailed link" },
    response: { status: 200, description: "Verified", schema: MessageSchema },
    errors: { 400: "The link is wrong or was used already" },
  },
} satisfies Record<string, RouteDocs>;
