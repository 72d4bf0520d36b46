import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { OpenApiDocumentSchema } from "../../../contract/responses.js";
import { imageOrigins, type Config } from "../../config.js";
import { THEME_COOKIE, themeOf, type Theme } from "../../../contract/theme.js";
import { pageCsp } from "../../web/page-requests.js";
import type { SiteSettingsReader } from "../../web/site-settings.js";
import { buildOpenApiDocument, undocumentedRoutes, type ApiRoute } from "./document.js";
import { documented } from "./route-docs.js";
import { readCookie } from "../../../contract/cookies.js";

const require = createRequire(import.meta.url);
const VIEWER_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const VIEWER_VERSION = (require("swagger-ui-dist/package.json") as { version: string }).version;
/** The viewer's files, under its version: a new version is a new address, so they never change. */
const ASSETS = `/api/docs/assets/${VIEWER_VERSION}`;

const VIEWER_FILES = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
} as const;

// The viewer's settings: our document, no call to swagger.io's validator (no third-party request).
const INIT_SCRIPT = `SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#reference",
  deepLinking: false,
  validatorUrl: null,
  tryItOutEnabled: false,
  // Its colour themes fall short of WCAG AA contrast on their dark background.
  syntaxHighlight: { activated: false },
  persistAuthorization: false,
});
`;
// Darker shades of the viewer's own colours where its text falls short of WCAG AA contrast.
const STYLES = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d63a8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #17754a; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4f00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3191e; }
.swagger-ui .info .title small.version-stamp { background: #4a6a00; }
.swagger-ui .info a, .swagger-ui .info .url { color: #1d5aa0; }
.swagger-ui .btn.authorize { color: #17754a; border-color: #17754a; }
.swagger-ui .btn.authorize svg { fill: #17754a; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4f4f4f; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated { color: #555555; }
body { margin: 0; }
/* The document names one server, this site: nothing to choose, and the viewer's chooser has no label. */
.swagger-ui .scheme-container .schemes-server-container, .swagger-ui .servers-title, .swagger-ui .servers { display: none; }
.docs-bar { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.75rem 1.25rem; background: #0f172a; color: #f8fafc; font: 16px/1.4 system-ui, sans-serif; }
.docs-bar a { color: #f8fafc; font-weight: 600; }
.docs-bar span { color: #cbd5e1; }
/* The site's dark theme (its cookie, or the system's setting without one): the viewer has none
   of its own, so its light colours are turned around, and pictures turned back. */
:root[data-theme="dark"] body { background: #0b0f19; }
:root[data-theme="dark"] #reference { filter: invert(0.92) hue-rotate(180deg); }
:root[data-theme="dark"] #reference img { filter: invert(1) hue-rotate(180deg); }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme]) body { background: #0b0f19; }
  :root:not([data-theme]) #reference { filter: invert(0.92) hue-rotate(180deg); }
  :root:not([data-theme]) #reference img { filter: invert(1) hue-rotate(180deg); }
}
`;

/** Named by their content, so they may be kept as long as the viewer's files. */
const contentName = (text: string, extension: string) =>
  `/api/docs/reference-${createHash("sha256").update(text).digest("hex").slice(0, 12)}.${extension}`;
const INIT_FILE = contentName(INIT_SCRIPT, "js");
const STYLES_FILE = contentName(STYLES, "css");

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);

/** The page, in the reader's theme (the site's cookie), under the site's current title. */
function docsPage(title: string, theme: Theme) {
  const themed = theme === "system" ? "" : ` data-theme="${theme}"`;
  return `<!doctype html>
<html lang="en"${themed}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${theme === "system" ? "light dark" : theme}">
<title>API reference - ${escapeHtml(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
<link rel="stylesheet" href="${STYLES_FILE}">
</head>
<body>
<header class="docs-bar"><a href="/">← Back to ${escapeHtml(title)}</a><span>API reference</span></header>
<div id="reference"><noscript><p>The interactive reference needs JavaScript. The document itself: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p></noscript></div>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${INIT_FILE}"></script>
</body>
</html>
`;
}

const hidden = documented({ hidden: "the API reference's own page and files" });

/**
 * `GET /api/openapi.json`, made once from the route table on first request (every route is
 * registered by then), and `/api/docs`, the interactive reference, from this origin alone.
 */
export function openApiRoutes(
  app: FastifyInstance,
  routes: readonly ApiRoute[],
  config: Config,
  siteSettings: SiteSettingsReader,
) {
  app.addHook("onReady", (done) => {
    const missing = undocumentedRoutes(routes);
    if (missing.length > 0) {
      app.log.warn({ routes: missing }, "routes missing from the API reference: give them docs");
    }
    done();
  });

  let document: string | undefined;
  app.get(
    "/api/openapi.json",
    documented({
      summary: "This reference, as an OpenAPI 3.1 document",
      tag: "reference",
      access: "anyone",
      response: { status: 200, description: "The document", schema: OpenApiDocumentSchema },
    }),
    (_request, reply) => {
      document ??= JSON.stringify(
        buildOpenApiDocument(routes, {
          title: `${config.site.title} API`,
          description:
            "The REST API of the site. Errors answer `{message}` (and `errors` per field on a " +
            "400) with the status that says what happened. Interactive reference: /api/docs.",
        }),
      );
      return reply
        .type("application/json; charset=utf-8")
        .header("cache-control", "no-cache")
        .send(document);
    },
  );

  // The site's own policy (no inline script or style, nothing from elsewhere).
  const csp = pageCsp([], config.publicUrl, imageOrigins(config));
  app.get("/api/docs", hidden, async (request, reply) => {
    const theme = themeOf(readCookie(request.headers.cookie, THEME_COOKIE));
    const { title } = await siteSettings();
    return reply
      .type("text/html; charset=utf-8")
      .header("content-security-policy", csp)
      .header("cache-control", "no-cache")
      .header("vary", "cookie")
      .send(docsPage(title, theme));
  });

  const files = new Map<string, Promise<Buffer>>();
  const longLived = "public, max-age=31536000, immutable";
  app.get(STYLES_FILE, hidden, (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", longLived).send(STYLES),
  );
  app.get(INIT_FILE, hidden, (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", longLived)
      .send(INIT_SCRIPT),
  );
  for (const [name, type] of Object.entries(VIEWER_FILES)) {
    app.get(`${ASSETS}/${name}`, hidden, async (_request, reply) => {
      let file = files.get(name);
      if (!file) {
        file = readFile(path.join(VIEWER_DIR, name));
        files.set(name, file);
      }
      return reply
        .type(type)
        .header("cache-control", longLived)
        .send(await file);
    });
  }
}
