import { PASSKEY_RESPONSE_MAX, securityMessages } from "../../../contract/account-security.js";
import { invalid } from "../../../core/shared/errors.js";

/**
 * The browser's passkey answer as a page's form sends it (its JSON in `credential`, and the
 * `challengeId` of its options), as the API's body: refused when it is not a JSON object, or far
 * bigger than any passkey's answer (the API's 64 KiB).
 */
export function passkeyAnswer(fields: Record<string, string>) {
  const text = fields.credential ?? "";
  let credential: unknown;
  try {
    credential = text.length <= PASSKEY_RESPONSE_MAX ? JSON.parse(text) : undefined;
  } catch {
    credential = undefined;
  }
  if (typeof credential !== "object" || credential === null) {
    throw invalid(securityMessages.passkeyInvalid);
  }
  return { ...credential, challengeId: fields.challengeId };
}
