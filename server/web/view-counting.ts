import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ViewCounter } from "../../core/stats/view-counter.js";
import { viewOf } from "../../core/stats/view-rules.js";

/** The signed-in reader of a page request, as the page server read them (their own posts' views are not counted). */
const viewers = new WeakMap<FastifyRequest, string>();

export const noteViewer = (request: FastifyRequest, viewerId: string) => {
  viewers.set(request, viewerId);
};

/**
 * Counts readers' views of post pages once their answer is sent (decision 026): a post page or
 * its client navigation data answered 200 (or 304, the reader's copy still good), to a browser,
 * not a prefetch, nor the same page asking again.
 */
export function countViews(pages: FastifyInstance, counter: ViewCounter, siteHost: string) {
  pages.addHook("onResponse", (request, reply, done) => {
    if (reply.statusCode === 200 || reply.statusCode === 304) {
      const view = viewOf(request, siteHost);
      if (view) {
        const headers = request.headers;
        counter.record({
          postId: view.postId,
          referrerHost: view.referrerHost,
          // Pages know their viewer by the session cookie: without one there is none to look up.
          viewerId: headers.cookie === undefined ? undefined : viewers.get(request),
          ip: request.ip,
          userAgent: headers["user-agent"] ?? "",
        });
      }
    }
    done();
  });
}
