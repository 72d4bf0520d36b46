import { integrationMessages } from "../../contract/integrations.js";
import type {
  PublicSiteSettings,
  SiteSettingsInput,
  SocialNetwork,
} from "../../contract/site-settings.js";
import {
  SOCIAL_NETWORKS,
  SITE_LOGO_MAX_BYTES,
  SiteSettingsSchema,
  siteSettingsMessages,
} from "../../contract/site-settings.js";
import type { NAVIGATION_PLACES } from "../../contract/navigation.js";
import {
  DEFAULT_NAVIGATION,
  isNavigationUrl,
  NAVIGATION_LINKS_MAX,
  type NavigationLink,
  type SiteNavigation,
} from "../../contract/navigation.js";
import type { Selectable } from "kysely";
import type { SiteSettingsTable } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import type { CoreDeps } from "../deps.js";
import { discardImages, imageUrl, storeSizedImage } from "../media/images.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "../users/policies.js";
import { hasSecondFactor } from "../auth/second-factor.js";
import { forbidden, invalid } from "../shared/errors.js";

const ROW_ID = "site";

/** The site's public facts as stored; `logoKey` names an image of the normal pipeline. */
export interface SiteSettings {
  title: string;
  welcome: string;
  contactPhone: string;
  contactEmail: string;
  logoKey: string | null;
  logoSize: { width: number; height: number } | null;
  socialLinks: Partial<Record<SocialNetwork, string>>;
  newsletterDefault: "send" | "none";
  navigation: SiteNavigation;
}

/** What a site shows before an admin first saves its settings: the SITE_* variables. */
export type SiteSettingsDefaults = Omit<
  SiteSettings,
  "logoKey" | "logoSize" | "socialLinks" | "newsletterDefault" | "navigation"
>;

/** The stored links, the networks known today only, blank ones left out. */
function linksOf(json: string): Partial<Record<SocialNetwork, string>> {
  let stored: unknown;
  try {
    stored = JSON.parse(json);
  } catch {
    return {};
  }
  if (typeof stored !== "object" || stored === null) return {};
  const links: Partial<Record<SocialNetwork, string>> = {};
  for (const network of SOCIAL_NETWORKS) {
    const url = (stored as Record<string, unknown>)[network];
    if (typeof url === "string" && url !== "") links[network] = url;
  }
  return links;
}

/**
 * The stored navigation, or the defaults while none was saved; a link the rules would refuse
 * today (a row written by hand) is left out rather than shown.
 */
function navigationOf(json: string | null): SiteNavigation {
  if (json === null) return DEFAULT_NAVIGATION;
  let stored: unknown;
  try {
    stored = JSON.parse(json);
  } catch {
    return DEFAULT_NAVIGATION;
  }
  const place = (name: (typeof NAVIGATION_PLACES)[number]): NavigationLink[] => {
    const links = (stored as Partial<Record<string, unknown>> | null)?.[name];
    if (!Array.isArray(links)) return [];
    return links
      .filter(
        (link): link is NavigationLink =>
          typeof (link as Partial<NavigationLink> | null)?.label === "string" &&
          typeof (link as Partial<NavigationLink> | null)?.url === "string" &&
          isNavigationUrl((link as NavigationLink).url),
      )
      .slice(0, NAVIGATION_LINKS_MAX)
      .map(({ label, url }) => ({ label, url }));
  };
  return { header: place("header"), footer: place("footer") };
}

const fromRow = (row: Selectable<SiteSettingsTable>): SiteSettings => ({
  title: row.title,
  welcome: row.welcome,
  contactPhone: row.contact_phone,
  contactEmail: row.contact_email,
  logoKey: row.logo_key,
  logoSize:
    row.logo_width && row.logo_height ? { width: row.logo_width, height: row.logo_height } : null,
  socialLinks: linksOf(row.social_links),
  newsletterDefault: row.newsletter_default,
  navigation: navigationOf(row.navigation),
});

/** Whether admins must have two-factor sign-in or a passkey to act as admins (decision 024). */
export async function adminSecondFactorRequired(deps: Pick<CoreDeps, "db">) {
  const row = await deps.db
    .selectFrom("site_settings")
    .select("require_admin_second_factor")
    .where("id", "=", ROW_ID)
    .executeTakeFirst();
  return row?.require_admin_second_factor === 1;
}

/** The stored settings, or the defaults while none were saved. One primary-key read. */
export async function readSiteSettings(
  deps: Pick<CoreDeps, "db">,
  defaults: SiteSettingsDefaults,
): Promise<SiteSettings> {
  const row = await deps.db
    .selectFrom("site_settings")
    .selectAll()
    .where("id", "=", ROW_ID)
    .executeTakeFirst();
  return row
    ? fromRow(row)
    : {
        ...defaults,
        logoKey: null,
        logoSize: null,
        socialLinks: {},
        newsletterDefault: "send",
        navigation: DEFAULT_NAVIGATION,
      };
}

export const presentSiteSettings = (
  deps: Pick<CoreDeps, "storage">,
  settings: SiteSettings,
): PublicSiteSettings => ({
  title: settings.title,
  welcome: settings.welcome,
  contactPhone: settings.contactPhone,
  contactEmail: settings.contactEmail,
  logo: settings.logoKey
    ? {
        url: imageUrl(deps.storage, settings.logoKey, "sm"),
        ...(settings.logoSize ?? {}),
      }
    : null,
  socialLinks: settings.socialLinks,
  newsletterDefault: settings.newsletterDefault,
  navigation: settings.navigation,
});

/** A new post's `newsletter` when its writer does not say (decision 028): "send" until set. */
export async function newsletterDefaultOf(deps: Pick<CoreDeps, "db">) {
  const row = await deps.db
    .selectFrom("site_settings")
    .select("newsletter_default")
    .where("id", "=", ROW_ID)
    .executeTakeFirst();
  return row?.newsletter_default ?? "send";
}

/**
 * Saves the title, welcome text, contacts, social links (kept when not given) and (when `logo` is given) a new logo, or removes the
 * logo (`removeLogo`). Admins only; validated before anything is stored; the logo is verified and
 * re-encoded by the image pipeline. Recorded in the audit log in the same transaction, and the
 * content version moves on, so every instance's pages and shared answers show it at once.
 */
export async function updateSiteSettings(
  deps: CoreDeps,
  actor: Actor,
  input: unknown,
  logo: Buffer | undefined,
  signal?: AbortSignal,
  /** Made with an API token: the admins' second-factor rule is an account change, not for it. */
  viaToken = false,
): Promise<{ settings: PublicSiteSettings; message: string }> {
  assertAdmin(actor);
  const values: SiteSettingsInput = validate(SiteSettingsSchema, input);
  const newLogo = logo
    ? await storeSizedImage(deps.storage, logo, SITE_LOGO_MAX_BYTES, signal)
    : undefined;
  const newLogoKey = newLogo?.key;
  let outcome: { saved: SiteSettings; replaced: string | null };
  try {
    outcome = await changingContent(deps, () =>
      deps.db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom("site_settings")
          .select([
            "logo_key",
            "logo_width",
            "logo_height",
            "social_links",
            "require_admin_second_factor",
            "newsletter_default",
            "navigation",
          ])
          .where("id", "=", ROW_ID)
          .executeTakeFirst();
        const currentKey = current?.logo_key ?? null;
        const links = values.socialLinks
          ? linksOf(JSON.stringify(values.socialLinks))
          : linksOf(current?.social_links ?? "{}");
        const logoKey = newLogoKey ?? (values.removeLogo === true ? null : currentKey);
        const changes = {
          title: values.title,
          welcome: values.welcome,
          contact_phone: values.contactPhone,
          contact_email: values.contactEmail,
          logo_key: logoKey,
          logo_width: newLogo ? newLogo.width : logoKey ? (current?.logo_width ?? null) : null,
          logo_height: newLogo ? newLogo.height : logoKey ? (current?.logo_height ?? null) : null,
          social_links: JSON.stringify(links),
          require_admin_second_factor:
            values.requireAdminSecondFactor === undefined
              ? (current?.require_admin_second_factor ?? 0)
              : values.requireAdminSecondFactor
                ? 1
                : 0,
          newsletter_default: values.newsletterDefault ?? current?.newsletter_default ?? "send",
          navigation: values.navigation
            ? JSON.stringify(values.navigation)
            : (current?.navigation ?? null),
          updated_at: iso(deps.clock()),
        };
        if (
          viaToken &&
          changes.require_admin_second_factor !== (current?.require_admin_second_factor ?? 0)
        ) {
          throw forbidden(integrationMessages.notWithToken);
        }
        if (changes.require_admin_second_factor === 1 && !(await hasSecondFactor(trx, actor.id))) {
          const message = siteSettingsMessages.ownSecondFactorFirst;
          throw invalid(message, { requireAdminSecondFactor: message });
        }
        await trx
          .insertInto("site_settings")
          .values({ id: ROW_ID, ...changes })
          .onConflict((conflict) => conflict.column("id").doUpdateSet(changes))
          .execute();
        await recordAudit(trx, deps, actor, "site.update", {
          kind: "site",
          id: ROW_ID,
          summary: values.title,
        });
        return {
          saved: fromRow({ id: ROW_ID, ...changes }),
          replaced: logoKey === currentKey ? null : currentKey,
        };
      }),
    );
  } catch (error) {
    if (newLogoKey) await discardImages(deps, [newLogoKey]);
    throw error;
  }
  // A logo two admins replaced at the same moment may be left unreferenced: the sweep removes it.
  if (outcome.replaced) await discardImages(deps, [outcome.replaced]);
  const saved = outcome.saved;
  return {
    settings: presentSiteSettings(deps, saved),
    message: siteSettingsMessages.updated,
  };
}

/**
 * Saves `navigation` as the site's when none was saved yet (a blog import's, decision 032): an
 * admin's choice is never written over. With no settings row yet, the row is made with the SITE_*
 * values the site shows until then. Returns whether it was saved.
 */
export async function saveNavigationIfUnset(
  deps: Pick<CoreDeps, "db" | "clock">,
  navigation: SiteNavigation,
  defaults: SiteSettingsDefaults,
): Promise<boolean> {
  const json = JSON.stringify(navigation);
  const now = iso(deps.clock());
  return deps.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable("site_settings")
      .set({ navigation: json, updated_at: now })
      .where("id", "=", ROW_ID)
      .where("navigation", "is", null)
      .executeTakeFirst();
    if (updated.numUpdatedRows > 0n) return true;
    const inserted = await trx
      .insertInto("site_settings")
      .values({
        id: ROW_ID,
        title: defaults.title,
        welcome: defaults.welcome,
        contact_phone: defaults.contactPhone,
        contact_email: defaults.contactEmail,
        logo_key: null,
        logo_width: null,
        logo_height: null,
        navigation: json,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column("id").doNothing())
      .executeTakeFirst();
    return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  });
}
