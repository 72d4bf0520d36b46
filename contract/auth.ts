import { z } from "zod";
import { EMAIL_MAX, PASSWORD_MAX, USERNAME_MAX } from "./limits.js";
import { requiredString } from "./validation.js";

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

const strongPassword = z
  .string({ error: messages.passwordRequired })
  .min(1, messages.passwordRequired)
  .regex(STRONG_PASSWORD_PATTERN, messages.passwordWeak)
  .max(PASSWORD_MAX, messages.passwordTooLong);

function email(invalid: string) {
  return requiredString(messages.emailRequired)
    .max(EMAIL_MAX, invalid)
    .regex(EMAIL_PATTERN, invalid);
}

export const RegisterSchema = z.object({
  username: requiredString(messages.usernameRequired)
    .regex(USERNAME_PATTERN, messages.usernameAlphanumeric)
    .max(USERNAME_MAX, messages.usernameTooLong),
  email: email(messages.emailInvalid),
  password: strongPassword,
});
export type RegisterInput = z.infer<typeof RegisterSchema>;

export const LoginSchema = z.object({
  email: email(messages.emailInvalidLogin),
  password: z
    .string({ error: messages.passwordRequired })
    .min(1, messages.passwordRequired)
    .max(PASSWORD_MAX, messages.passwordTooLong),
  /** With two-factor sign-in on (DESIGN.md 10): the app's code, or one of the recovery codes. */
  code: z.string().trim().max(20).optional(),
  recoveryCode: z.string().trim().max(40).optional(),
});
export type LoginInput = z.infer<typeof LoginSchema>;

export const ForgotPasswordSchema = z.object({
  email: requiredString(messages.emailRequired)
    .max(EMAIL_MAX, messages.emailInvalidLogin)
    .regex(EMAIL_PATTERN, messages.emailInvalid),
});

export const ResetPasswordSchema = z.object({ password: strongPassword });
