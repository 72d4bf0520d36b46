import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import { unsubscribe } from "../../../core/conversation-mail/unsubscribe.js";
import { getSettings, updateSettings } from "../../../core/user-settings/user-settings-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { userSettingsDocs as docs } from "./docs.js";

type LinkParams = { Params: { userId: string; token: string } };

export function userSettingsRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/users/me/settings", documented(docs.read), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return getSettings(deps, actor);
  });

  app.put("/api/users/me/settings", documented(docs.update), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return updateSettings(deps, actor, request.body);
  });

  // RFC 8058: the mail's List-Unsubscribe address. A mail client POSTs
  // "List-Unsubscribe=One-Click" to it, form-encoded, with no session: the signed link is the proof.
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 1024 },
      (_request, body, next) => {
        next(null, body);
      },
    );
    scope.post<LinkParams>(
      "/api/unsubscribe/:userId/:token",
      documented(docs.unsubscribe, limits.unsubscribe),
      (request) => unsubscribe(deps, request.params.userId, request.params.token),
    );
    // A client without one-click support opens the address: it shows the page and its button, and
    // a GET (a mail scanner following links) changes nothing.
    scope.get<LinkParams>(
      "/api/unsubscribe/:userId/:token",
      documented(docs.unsubscribePage),
      (request, reply) =>
        reply.redirect(
          `${deps.site.mailLinkUrl}/unsubscribe/${encodeURIComponent(request.params.userId)}/${encodeURIComponent(request.params.token)}`,
          303,
        ),
    );
    done();
  });
}
