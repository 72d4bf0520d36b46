import type { FastifyContextConfig, FastifyRequest } from "fastify";
import type { LimitName } from "../../contract/site-host.js";

const MINUTE = 60_000;

/**
 * One limit: `max` requests per address in `minutes`. The count is kept under the limit's name,
 * not the route's, so every route and page form that spends it (the three image uploads, say, or
 * sign-up through the API and through the page) draws on one allowance.
 */
function perAddress(name: string, max: number, minutes: number) {
  return {
    rateLimit: {
      max,
      timeWindow: minutes * MINUTE,
      keyGenerator: (request: FastifyRequest) => `${name}:${request.ip}`,
    },
  } satisfies FastifyContextConfig;
}

/** Per-address limits on the routes people abuse; `RATE_LIMITS=off` turns them all off. */
export const limits = {
  login: perAddress("login", 10, 15),
  register: perAddress("register", 10, 60),
  resetLink: perAddress("reset-link", 5, 60),
  upload: perAddress("upload", 30, 15),
  // An allowance of its own: an article with a dozen pictures must leave room to publish it.
  bodyImage: perAddress("body-image", 60, 15),
  comment: perAddress("comment", 30, 5),
  report: perAddress("report", 20, 15),
  like: perAddress("like", 120, 5),
  // Each follow notifies its writer (decision 016); a bookmark stores a row.
  follow: perAddress("follow", 60, 5),
  bookmark: perAddress("bookmark", 120, 5),
  // Every edit renders the post's Markdown again, on the render thread: up to 0.75 s of its CPU
  // for the costliest body, twice (with and without highlighting) before it is refused.
  postEdit: perAddress("post-edit", 30, 5),
  // A draft saves itself while its writer types (at most every 10 s, decision 022): an edit each.
  autosave: perAddress("autosave", 60, 5),
  // The editor's preview renders like an edit but stores nothing; a writer may look often.
  preview: perAddress("preview", 60, 5),
  // A profile update may hash a password twice (check the current one, store a new one), and an
  // "e-mail already in use" answer tells whether an address has an account.
  profile: perAddress("profile", 20, 15),
  // Each save moves the content version on (every shared page is rendered again) and may carry a
  // logo for the image pipeline.
  settings: perAddress("settings", 20, 15),
  // A search is cheap but not free (a ranked index read and snippets); suggestions while typing
  // ask a few times per search, well within this.
  search: perAddress("search", 120, 1),
  // Two-factor set-up and passkeys (decision 024): each stores a secret, a challenge or a
  // credential, and a wrong password spends the account's sign-in attempts besides.
  security: perAddress("security", 30, 15),
  // API tokens and webhooks (decision 025): each new one stores a credential, and a test event
  // makes this server call out to an address an admin chose.
  integrations: perAddress("integrations", 30, 15),
  // A mailed unsubscribe link, used without a session: nobody needs many, guessers would.
  unsubscribe: perAddress("unsubscribe", 30, 15),
  // Each may send a confirmation mail (three an address a day besides): a client signs up few.
  subscribe: perAddress("subscribe", 10, 60),
  // An import reads up to 50,000 rows and may mail 500 confirmations: an owner needs a few.
  subscriberImport: perAddress("subscriber-import", 10, 60),
  // "Send me a test e-mail": a writer checks a post a few times before it goes out.
  testMail: perAddress("test-mail", 10, 15),
} satisfies Record<LimitName, FastifyContextConfig>;
