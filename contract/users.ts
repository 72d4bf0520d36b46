import { z } from "./zod.js";
import { EMAIL_PATTERN, USERNAME_PATTERN, messages as authMessages } from "./auth.js";
import { PageQuerySchema } from "./content.js";
import {
  BIO_MAX,
  EMAIL_MAX,
  PASSWORD_MAX,
  PROFILE_PASSWORD_MIN,
  PROFILE_USERNAME_MIN,
  SOCIAL_LINKS_MAX,
  SOCIAL_URL_MAX,
  USERNAME_MAX,
} from "./limits.js";
import { requiredString } from "./validation.js";

export const SOCIAL_NETWORKS = ["facebook", "linkedin", "github", "whatsapp", "gmail"] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

export const profileMessages = {
  usernameRequired: "Username is required",
  usernameTooShort: `Username must be at least ${PROFILE_USERNAME_MIN} characters long`,
  usernameTooLong: `Username must be at most ${USERNAME_MAX} characters long`,
  usernameAlphanumeric: authMessages.usernameAlphanumeric,
  currentPasswordRequired: "Enter your current password to change your email or password",
  currentPasswordWrong: "Current password is incorrect",
  passwordTooShort: `Password must be at least ${PROFILE_PASSWORD_MIN} characters long`,
  passwordTooLong: `Password must be at most ${PASSWORD_MAX} characters long`,
  emailRequired: "Email is required",
  emailInvalid: "Email must be a valid email address",
  bioRequired: "Bio is required",
  bioTooLong: `Bio must be at most ${BIO_MAX} characters long`,
  socialNameRequired: "Required",
  socialUrlRequired: "Url required",
  socialTooMany: `At most ${SOCIAL_LINKS_MAX} social links`,
  socialNotAList: "Social links must be a list of {name, url}",
  socialUrlTooLong: `Url must be at most ${SOCIAL_URL_MAX} characters long`,
  socialUrlWeb: "Url must start with http:// or https://",
  socialUrlEmail: "Url must be an email address",
  socialUrlPhone: "Url must be a phone number",
} as const;

const WEB_URL = /^https?:\/\/[^\s]+$/i;
const PHONE = /^\+?[0-9][0-9 ()-]{4,24}$/;

/**
 * A social link. gmail holds an address and whatsapp a phone number (SPEC.md 3); the others must be
 * web links, so a `javascript:` or `data:` URL can never reach a page as an href.
 */
export const SocialLinkSchema = z
  .object({
    name: z.enum(SOCIAL_NETWORKS, { error: profileMessages.socialNameRequired }),
    url: requiredString(profileMessages.socialUrlRequired).max(
      SOCIAL_URL_MAX,
      profileMessages.socialUrlTooLong,
    ),
  })
  .superRefine((link, ctx) => {
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", path: ["url"], message });
    };
    if (link.name === "gmail") {
      // An address holds no colon of its own, so "javascript:x@y.co" cannot pass as one.
      const address = link.url.replace(/^mailto:/i, "");
      if (address.includes(":") || !EMAIL_PATTERN.test(address))
        fail(profileMessages.socialUrlEmail);
    } else if (link.name === "whatsapp") {
      if (!PHONE.test(link.url)) fail(profileMessages.socialUrlPhone);
    } else if (!WEB_URL.test(link.url)) {
      fail(profileMessages.socialUrlWeb);
    }
  });
export type SocialLink = z.infer<typeof SocialLinkSchema>;

/**
 * A profile edit. A new username follows the sign-up rule (letters and digits); the one the account
 * already has is kept as it is, so an account named before that rule can still edit its profile.
 */
export const profileUpdateSchema = (currentUsername?: string) =>
  z.object({
    username: requiredString(profileMessages.usernameRequired)
      .min(PROFILE_USERNAME_MIN, profileMessages.usernameTooShort)
      .max(USERNAME_MAX, profileMessages.usernameTooLong)
      .refine((name) => name === currentUsername || USERNAME_PATTERN.test(name), {
        message: profileMessages.usernameAlphanumeric,
      }),
    email: requiredString(profileMessages.emailRequired)
      .max(EMAIL_MAX, profileMessages.emailInvalid)
      .regex(EMAIL_PATTERN, profileMessages.emailInvalid),
    bio: requiredString(profileMessages.bioRequired).max(BIO_MAX, profileMessages.bioTooLong),
    // Sent only when filled (SPEC.md 5): an empty string means "keep the current password".
    password: z
      .string()
      .max(PASSWORD_MAX, profileMessages.passwordTooLong)
      .optional()
      .transform((value) => (value ? value : undefined))
      .refine((value) => value === undefined || value.length >= PROFILE_PASSWORD_MIN, {
        message: profileMessages.passwordTooShort,
      }),
    // Asked for when the e-mail or the password changes, unless the session signed in just now.
    currentPassword: z
      .string()
      .max(PASSWORD_MAX, profileMessages.currentPasswordWrong)
      .optional()
      .transform((value) => (value ? value : undefined)),
    socialMedia: z
      .array(SocialLinkSchema, { error: profileMessages.socialNotAList })
      .max(SOCIAL_LINKS_MAX, profileMessages.socialTooMany)
      .default([]),
  });

export const ProfileUpdateSchema = profileUpdateSchema();
export type ProfileUpdateInput = z.infer<typeof ProfileUpdateSchema>;

/** Rows a page of the admin's user list holds (`GET /api/admin/users?pageNumber=n`, the table). */
export const USERS_PAGE_SIZE = 20;

export const userListMessages = {
  searchTooLong: `q must be at most ${EMAIL_MAX} characters long`,
  searchInvalid: "q must be text",
} as const;

/** `?q=`: accounts whose username or e-mail contains the text (any case); all when empty. */
export const UserSearchSchema = z.object({
  q: z
    .string({ error: userListMessages.searchInvalid })
    .trim()
    .max(EMAIL_MAX, userListMessages.searchTooLong)
    .optional()
    .describe("Only accounts whose username or e-mail contains this text (any case)"),
});

/** `GET /api/admin/users?q=&pageNumber=n`: every matching account when pageNumber is left out. */
export const UserListQuerySchema = UserSearchSchema.extend({
  pageNumber: PageQuerySchema.shape.pageNumber.describe(
    `A page of ${String(USERS_PAGE_SIZE)}, newest first; every account when left out`,
  ),
});
