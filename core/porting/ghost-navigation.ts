import type { ForeignBlog, ForeignLink } from "./foreign.js";

/**
 * Ghost's navigation: the settings rows `navigation` (the header's links) and
 * `secondary_navigation` (the footer's), each the JSON text of `[{label, url}]`. A place the
 * export does not have is undefined; one that cannot be read is reported and left out.
 */
export function ghostNavigation(
  database: Record<string, unknown>,
  skipped: ForeignBlog["skipped"],
): ForeignBlog["navigation"] {
  const rows = Array.isArray(database.settings) ? (database.settings as unknown[]) : [];
  const valueOf = (key: string) => {
    const row = rows.find(
      (candidate) => (candidate as { key?: unknown } | null | undefined)?.key === key,
    ) as { value?: unknown } | undefined;
    return row?.value;
  };
  const header = linksOf(valueOf("navigation"), "navigation", skipped);
  const footer = linksOf(valueOf("secondary_navigation"), "secondary_navigation", skipped);
  if (header === undefined && footer === undefined) return undefined;
  return { ...(header ? { header } : {}), ...(footer ? { footer } : {}) };
}

/** One setting's links, as Ghost has them (the writer checks them against this site's rules). */
function linksOf(
  value: unknown,
  key: string,
  skipped: ForeignBlog["skipped"],
): ForeignLink[] | undefined {
  if (value === undefined || value === null) return undefined;
  let links: unknown = value;
  if (typeof value === "string") {
    try {
      links = JSON.parse(value);
    } catch {
      links = undefined;
    }
  }
  if (!Array.isArray(links)) {
    skipped.push({ item: `the ${key} setting`, reason: "it is not a list of links" });
    return undefined;
  }
  return links.map((link: unknown) => {
    const fields = (link ?? {}) as { label?: unknown; url?: unknown };
    return {
      label: typeof fields.label === "string" ? fields.label : "",
      url: typeof fields.url === "string" ? fields.url : "",
    };
  });
}
