import type { FastifyInstance } from "fastify";
import { SITE_LOGO_MAX_BYTES } from "../../../contract/site-settings.js";
import type { CoreDeps } from "../../../core/deps.js";
import { updateSiteSettings } from "../../../core/site-settings/site-settings-service.js";
import { assertAdmin } from "../../../core/users/policies.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { clientLeft, readImageForm } from "../../plugins/uploads.js";
import type { SiteSettingsReader } from "../../web/site-settings.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { siteSettingsDocs as docs } from "./docs.js";

/** The site's title, welcome text, contacts and logo (decision 020). */
export function siteSettingsRoutes(
  app: FastifyInstance,
  deps: CoreDeps,
  siteSettings: SiteSettingsReader,
) {
  app.get("/api/settings", documented(docs.read), () => siteSettings());

  // JSON, or multipart with the same fields and an optional `image` file: the new logo.
  app.put(
    "/api/admin/settings",
    documented(docs.update, limits.settings),
    async (request, reply) => {
      const { actor, token } = await requireSignedIn(deps, request);
      // Refused before a byte of the body (a logo, perhaps) is read.
      assertAdmin(actor);
      const signal = clientLeft(reply);
      const viaToken = token !== undefined;
      if (request.isMultipart()) {
        const { fields, image } = await readImageForm(request, SITE_LOGO_MAX_BYTES);
        return updateSiteSettings(deps, actor, fields, image, signal, viaToken);
      }
      return updateSiteSettings(deps, actor, request.body, undefined, signal, viaToken);
    },
  );
}
