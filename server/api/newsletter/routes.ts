import type { FastifyInstance } from "fastify";
import { newsletterUnsubscribePath } from "../../../contract/page-paths.js";
import type { CoreDeps } from "../../../core/deps.js";
import { postNewsletter } from "../../../core/newsletter/sending.js";
import {
  confirmSubscription,
  subscribe,
  unsubscribeByToken,
} from "../../../core/newsletter/subscriptions.js";
import { optionalSignedIn, requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { newsletterDocs as docs } from "./docs.js";

/** Newsletters (DESIGN.md 11; decision 028): subscribing, confirming, leaving, and a post's mailing. */
export function newsletterRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.post(
    "/api/newsletter/subscribe",
    documented(docs.subscribe, limits.subscribe),
    async (request, reply) => {
      const signed = await optionalSignedIn(deps, request);
      const answer = await subscribe(deps, signed?.actor, request.body);
      return reply.status(202).send(answer);
    },
  );

  app.post<{ Params: { id: string; token: string } }>(
    "/api/newsletter/confirm/:id/:token",
    documented(docs.confirm, limits.unsubscribe),
    (request) => confirmSubscription(deps, request.params.id, request.params.token),
  );

  app.get<{ Params: { id: string } }>(
    "/api/posts/:id/newsletter",
    documented(docs.postNewsletter),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return postNewsletter(deps, actor, request.params.id);
    },
  );

  // RFC 8058: the mail's List-Unsubscribe address, outside /api so the link reads as the site's.
  // A mail client POSTs "List-Unsubscribe=One-Click" with no cookie: the signed token is the proof.
  // The page at the same address (a GET, which changes nothing) posts here too, as a plain form:
  // a browser is sent back to the page, which then says it is done.
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser(
      ["application/x-www-form-urlencoded", "text/plain"],
      { parseAs: "string", bodyLimit: 1024 },
      (_request, body, next) => {
        next(null, body);
      },
    );
    scope.post<{ Params: { token: string } }>(
      "/newsletter/unsubscribe/:token",
      { config: { ...limits.unsubscribe } },
      async (request, reply) => {
        const answer = await unsubscribeByToken(deps, request.params.token);
        if ((request.headers.accept ?? "").includes("text/html")) {
          return reply.redirect(`${newsletterUnsubscribePath(request.params.token)}?done=1`, 303);
        }
        return answer;
      },
    );
    done();
  });
}
