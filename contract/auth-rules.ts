import { PASSWORD_MAX, USERNAME_MAX } from "./limits.js";

// Accounts' patterns and words without zod (auth.ts re-exports them): the sign-up and password
// pages load these, and zod only when their form is used.

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** 8+ characters with a lowercase, an uppercase, a digit and one of ! + @ # $ % ^ & * (SPEC.md 5). */
export const STRONG_PASSWORD_PATTERN = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[!+@#$%^&*]).{8,}$/;
export const USERNAME_PATTERN = /^[a-zA-Z0-9]+$/;

/** The rules of a new password, shown with the field before anything is typed (issue 33). */
export const PASSWORD_HINT =
  "At least 8 characters, with an uppercase and a lowercase letter, a number and one of ! + @ # $ % ^ & *";

export const messages = {
  emailRequired: "Email is required",
  emailInvalid: "Invalid email address",
  emailInvalidLogin: "Please enter a valid email address",
  passwordRequired: "Password is required",
  passwordWeak:
    "Must contain 8 characters, one uppercase, one lowercase, one number and one special character",
  passwordTooLong: `Password must be at most ${PASSWORD_MAX} characters long`,
  usernameRequired: "Username is required",
  usernameAlphanumeric: "Username should contain only alphanumeric characters",
  usernameTooLong: `Username must be at most ${USERNAME_MAX} characters long`,
} as const;
