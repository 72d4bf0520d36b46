// Account security's words and limits without zod (account-security.ts re-exports them): the
// login page loads these, and zod only when its form is used.

export const RECOVERY_CODES_COUNT = 10;
export const PASSKEY_NAME_MAX = 60;
/** A passkey response is a few kilobytes; anything far bigger is not one. */
export const PASSKEY_RESPONSE_MAX = 64 * 1024;

export const securityMessages = {
  codeRequired: "Two-factor code required",
  codeInvalid: "Invalid two-factor code",
  alreadyOn: "Two-factor sign-in is already on",
  notOn: "Two-factor sign-in is not on",
  setupFirst: "Set up two-factor sign-in first",
  enabled: "Two-factor sign-in is on",
  disabled: "Two-factor sign-in is off",
  currentPasswordRequired: "Current password is required",
  currentPasswordWrong: "Current password is incorrect",
  passkeyNameTooLong: `Name must be at most ${String(PASSKEY_NAME_MAX)} characters`,
  passkeyInvalid: "This passkey could not be verified, please try again",
  passkeyUnknown: "This passkey is not registered here",
  passkeyNotFound: "Passkey not found",
  passkeyTaken: "This passkey is already registered",
  passkeyAdded: "Passkey added",
  passkeyRemoved: "Passkey removed",
  passkeysNeedDomain:
    "Passkeys need this site to be reached by its domain name: it is served at an IP address",
  sessionNotFound: "Session not found",
  sessionEnded: "Signed out on that device",
  othersEnded: "Signed out everywhere else",
  signInExpired: "This sign-in took too long, please enter your email and password again",
  signInAgain:
    "For your safety, sign in again to set up two-factor sign-in or add a passkey: your last sign-in was over 15 minutes ago",
  factorFirst:
    "For your safety, sign in with your authenticator app or a passkey to add another way to sign in: this sign-in used only the password",
} as const;
