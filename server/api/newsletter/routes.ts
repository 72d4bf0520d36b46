import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { newsletterUnsubscribePath } from "../../../contract/page-paths.js";
import type { CoreDeps } from "../../../core/deps.js";
import {
  deleteSubscriber,
  listSubscribers,
  subscribersCsv,
} from "../../../core/newsletter/owners.js";
import { postNewsletter, sendTestNewsletter } from "../../../core/newsletter/sending.js";
import { importSubscribers } from "../../../core/newsletter/subscriber-import.js";
import {
  confirmSubscription,
  subscribe,
  unsubscribeByToken,
} from "../../../core/newsletter/subscriptions.js";
import { iso } from "../../../core/shared/clock.js";
import { optionalSignedIn, requireSignedIn } from "../../plugins/auth.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { readCsvUpload, subscriberImportScope } from "./csv-upload.js";
import { newsletterDocs as docs } from "./docs.js";

/**
 * Newsletters (DESIGN.md 11; decision 028): subscribing, confirming, leaving, a post's mailing, and
 * the owners' lists of their subscribers.
 */
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

  // The owners' side (an admin: every subscription; a member: those to them as a writer).
  app.get("/api/newsletter/subscribers", documented(docs.subscribers), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listSubscribers(deps, actor, request.query);
  });

  app.get("/api/newsletter/subscribers.csv", documented(docs.exportCsv), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    const lines = await subscribersCsv(deps, actor, request.query);
    const name = `subscribers-${iso(deps.clock()).slice(0, 10)}.csv`;
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="${name}"`)
      .header("cache-control", "private, no-store")
      .send(Readable.from(lines, { objectMode: false }));
  });

  app.delete<{ Params: { id: string } }>(
    "/api/newsletter/subscribers/:id",
    documented(docs.deleteSubscriber),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      await deleteSubscriber(deps, actor, request.params.id);
      return reply.status(204).send();
    },
  );

  void app.register(
    subscriberImportScope((scope) => {
      scope.post(
        "/api/newsletter/subscribers/import",
        documented(docs.importSubscribers, limits.subscriberImport),
        async (request) => {
          const { actor } = await requireSignedIn(deps, request);
          const upload = await readCsvUpload(request);
          return importSubscribers(deps, actor, upload.file, upload.options);
        },
      );
    }),
  );

  app.get<{ Params: { id: string } }>(
    "/api/posts/:id/newsletter",
    documented(docs.postNewsletter),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return postNewsletter(deps, actor, request.params.id);
    },
  );

  app.post<{ Params: { id: string } }>(
    "/api/posts/:id/newsletter/test",
    documented(docs.testMail, limits.testMail),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      return reply.status(202).send(await sendTestNewsletter(deps, actor, request.params.id));
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
