import { z } from "./zod.js";
import { EMAIL_MAX, PASSWORD_MAX, USERNAME_MAX } from "./limits.js";
import {
  EMAIL_PATTERN,
  messages,
  STRONG_PASSWORD_PATTERN,
  USERNAME_PATTERN,
} from "./auth-rules.js";
import { requiredString } from "./validation.js";

export * from "./auth-rules.js";

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
