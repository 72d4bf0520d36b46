import { SITE_LOGO_MAX_BYTES, SiteSettingsSchema } from "../../../contract/site-settings.js";
import {
  SiteSettingsSavedSchema,
  SiteSettingsSchema as SiteSettingsAnswer,
} from "../../../contract/responses.js";
import { imageForm, type RouteDocs } from "../openapi/route-docs.js";

/** The API reference's entries for server/api/settings/routes.ts. */
export const siteSettingsDocs = {
  read: {
    summary: "Read the site's title, welcome text, contacts, logo, social links and navigation",
    tag: "settings",
    access: "anyone",
    response: { status: 200, description: "The site's settings", schema: SiteSettingsAnswer },
  },
  update: {
    summary: "Change the site's settings",
    description:
      "JSON, or a multipart form with the same fields and an optional `image`: the new logo. " +
      "`removeLogo` goes back to the default mark. `socialLinks` (an object of github, linkedin, " +
      "x and facebook to web addresses; JSON text in a multipart form) replaces the footer's " +
      "links, a blank one removed; left out, they stay. `navigation` ({header, footer}: lists " +
      "of at most 8 {label, url}, a url a path on this site or an http(s) address; JSON text in " +
      "a multipart form) replaces the header's and footer's links in that order; left out, they " +
      "stay. Every page shows the change at once.",
    tag: "settings",
    access: "admin",
    body: SiteSettingsSchema,
    form: imageForm(SITE_LOGO_MAX_BYTES, SiteSettingsSchema, true),
    response: { status: 200, description: "Saved", schema: SiteSettingsSavedSchema },
    errors: { 503: "Too many images are being processed: try again in a moment" },
  },
} satisfies Record<string, RouteDocs>;
