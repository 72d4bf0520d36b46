import { ForgotPasswordSchema, ResetPasswordSchema } from "../../../contract/auth.js";
import { MessageSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const linkParams = { userId: "The account's id", token: "The token of the mailed link" };

/** The API reference's entries for server/api/password/routes.ts. */
export const passwordDocs = {
  sendLink: {
    summary: "Mail a password reset link",
    description: "The same answer whether or not the address has an account.",
    access: "anyone",
    body: ForgotPasswordSchema,
    response: { status: 200, description: "Mailed, if the account exists", schema: MessageSchema },
    errors: { 503: "The mail could not be sent" },
  },
  checkLink: {
    summary: "Check a password reset link",
    access: "anyone",
    params: linkParams,
    response: { status: 200, description: "The link is valid", schema: MessageSchema },
    errors: { 400: "The link is wrong, used or expired" },
  },
  reset: {
    summary: "Set a new password with a reset link",
    description: "The link works once; the account's other sessions end.",
    access: "anyone",
    params: linkParams,
    body: ResetPasswordSchema,
    response: { status: 200, description: "The password is changed", schema: MessageSchema },
    errors: { 400: "Invalid password, or the link is wrong, used or expired" },
  },
} satisfies Record<string, RouteDocs>;
