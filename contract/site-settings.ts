import { z } from "./zod.js";
import { EMAIL_PATTERN } from "./auth.js";
import { requiredString } from "./validation.js";

// Site settings (decision 020): what every page says about the site, edited by admins.

export const SITE_TITLE_MAX = 80;
export const SITE_WELCOME_MAX = 500;
export const SITE_PHONE_MAX = 30;
export const SITE_EMAIL_MAX = 254;
/** The logo goes through the image pipeline like a profile photo, with the same size limit. */
export const SITE_LOGO_MAX_BYTES = 7_000_000;

/**
 * A phone number as people write it: an optional +, then 5 to 20 digits with spaces, dots,
 * hyphens, slashes or brackets between them. No letters (a `tel:` link is made from it).
 */
export const PHONE_PATTERN = /^\+?(?:[\s().\-/]*\d){5,20}[\s().\-/]*$/;

import {
  isNavigationUrl,
  NAVIGATION_LABEL_MAX,
  NAVIGATION_LINKS_MAX,
  navigationMessages,
  type SiteNavigation,
} from "./navigation.js";
// Zod-free, for the footer on every page.
import { SOCIAL_NETWORKS, type SocialNetwork } from "./social-networks.js";
export { SOCIAL_NETWORK_NAMES, SOCIAL_NETWORKS, type SocialNetwork } from "./social-networks.js";
export const SOCIAL_URL_MAX = 2000;

export const siteSettingsMessages = {
  titleRequired: "Title is required",
  titleTooLong: `Title must be at most ${String(SITE_TITLE_MAX)} characters`,
  welcomeRequired: "Welcome text is required",
  welcomeTooLong: `Welcome text must be at most ${String(SITE_WELCOME_MAX)} characters`,
  phoneRequired: "Contact phone is required",
  phoneTooLong: `Contact phone must be at most ${String(SITE_PHONE_MAX)} characters`,
  phoneInvalid: "Contact phone must be a phone number like +1 555 0100",
  emailRequired: "Contact e-mail is required",
  emailTooLong: `Contact e-mail must be at most ${String(SITE_EMAIL_MAX)} characters`,
  emailInvalid: "Contact e-mail must be an e-mail address",
  socialLinksInvalid: `Social links must be an object of ${SOCIAL_NETWORKS.join(", ")} to web addresses`,
  socialUrlInvalid: "Must be a web address starting with https:// or http://",
  updated: "Site settings saved",
  ownSecondFactorFirst:
    "Turn on two-factor sign-in or add a passkey on your own account first, or you would stop being an admin",
} as const;

const m = siteSettingsMessages;

/** A form's checkbox ("on"), a multipart field ("true") or JSON's boolean. */
const flag = z.preprocess(
  (value) => value === true || value === "true" || value === "on",
  z.boolean(),
);

const isWebAddress = (text: string) => {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    return new URL(text).hostname !== "";
  } catch {
    return false;
  }
};

/** One network's address: a web address, or blank for none. */
const socialUrl = z
  .string({ error: m.socialUrlInvalid })
  .trim()
  .max(SOCIAL_URL_MAX, m.socialUrlInvalid)
  .refine((text) => text === "" || isWebAddress(text), m.socialUrlInvalid)
  .optional();

/** A multipart field's JSON text as the value it writes; anything else as it is. */
function jsonText(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * The footer's links: an object (JSON), or its JSON text (a multipart field). A network left out
 * or blank has no link.
 */
const socialLinks = z.preprocess(
  jsonText,
  z.object(
    Object.fromEntries(SOCIAL_NETWORKS.map((network) => [network, socialUrl])) as Record<
      SocialNetwork,
      typeof socialUrl
    >,
    { error: m.socialLinksInvalid },
  ),
);

const n = navigationMessages;

/** One place's links, in order: each with a label and an address (decision 032). */
const navigationLinks = z
  .array(
    z.object(
      {
        label: requiredString(n.labelRequired).max(NAVIGATION_LABEL_MAX, n.labelTooLong),
        url: requiredString(n.urlRequired).refine(isNavigationUrl, n.urlInvalid),
      },
      { error: n.invalid },
    ),
    { error: n.invalid },
  )
  .max(NAVIGATION_LINKS_MAX, n.tooMany);

/** The header's and footer's links: an object (JSON), or its JSON text (a multipart field). */
const navigation = z.preprocess(
  jsonText,
  z.object({ header: navigationLinks, footer: navigationLinks }, { error: n.invalid }),
);

/** `PUT /api/admin/settings` (JSON or multipart with an optional `image` file) and the form. */
export const SiteSettingsSchema = z.object({
  title: requiredString(m.titleRequired).max(SITE_TITLE_MAX, m.titleTooLong),
  welcome: requiredString(m.welcomeRequired).max(SITE_WELCOME_MAX, m.welcomeTooLong),
  contactPhone: requiredString(m.phoneRequired)
    .max(SITE_PHONE_MAX, m.phoneTooLong)
    .regex(PHONE_PATTERN, m.phoneInvalid),
  contactEmail: requiredString(m.emailRequired)
    .max(SITE_EMAIL_MAX, m.emailTooLong)
    .regex(EMAIL_PATTERN, m.emailInvalid),
  removeLogo: flag.optional(),
  /** Left out: the links stay as they are (a client that predates them changes nothing). */
  socialLinks: socialLinks.optional(),
  /**
   * Admins act as admins only with two-factor sign-in or a passkey (decision 024). Left out: as it
   * is.
   */
  requireAdminSecondFactor: flag.optional(),
  /** The header's and footer's links (decision 032). Left out: as they are. */
  navigation: navigation.optional(),
  /** A new post's `newsletter` when its writer does not say (decision 028). Left out: as it is. */
  newsletterDefault: z
    .enum(["send", "none"], { error: 'Newsletter default must be "send" or "none"' })
    .optional(),
});

export type SiteSettingsInput = z.output<typeof SiteSettingsSchema>;

/** `GET /api/settings`: the public facts every page shows. */
export interface PublicSiteSettings {
  title: string;
  welcome: string;
  contactPhone: string;
  contactEmail: string;
  /** The logo (400 px wide WebP), or null for the default mark. */
  logo: { url: string; width?: number; height?: number } | null;
  /** The footer's social links: only the networks that have one. */
  socialLinks: Partial<Record<SocialNetwork, string>>;
  /** A new post's `newsletter` when its writer does not say (decision 028). */
  newsletterDefault: "send" | "none";
  /** The header's and footer's links, in order (the defaults until an admin saves them). */
  navigation: SiteNavigation;
}
