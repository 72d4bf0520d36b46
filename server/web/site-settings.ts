import type { PublicSiteSettings } from "../../contract/site-settings.js";
import type { CoreDeps } from "../../core/deps.js";
import {
  presentSiteSettings,
  readSiteSettings,
  type SiteSettingsDefaults,
} from "../../core/site-settings/site-settings-service.js";
import type { ContentVersion } from "./content-version.js";

/** The site's public facts now: the stored settings, or the SITE_* variables until saved. */
export type SiteSettingsReader = () => Promise<PublicSiteSettings>;

/**
 * Reads the settings once per content version (saving them moves the version on, on every
 * instance through Redis), so a page costs no query for them; with no known version (PAGE_CACHE
 * off, Redis away) every call reads the row. The version is read before the row, as the page
 * cache does, so a read racing a save is never kept as current.
 */
export function siteSettingsReader(
  deps: Pick<CoreDeps, "db" | "storage">,
  defaults: SiteSettingsDefaults,
  contentVersion: ContentVersion,
): SiteSettingsReader {
  let kept: { version: string; value: Promise<PublicSiteSettings> } | undefined;
  const read = async () => presentSiteSettings(deps, await readSiteSettings(deps, defaults));
  return async () => {
    const version = await contentVersion.current();
    if (version === undefined) return read();
    if (kept?.version === version) return kept.value;
    const entry = { version, value: read() };
    kept = entry;
    entry.value.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return entry.value;
  };
}
