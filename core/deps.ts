import type * as MailTemplates from "./newsletter/newsletter-mail.js";
import type { Kysely } from "kysely";
import type { ReadWorker } from "../db/read-worker.js";
import type { Database } from "../db/schema.js";
import type { SearchRanking } from "../db/search-rank.js";
import type { AttemptCounter } from "./auth/login-attempts.js";
import type { Mailer } from "./mail/mailer.js";
import type { Storage } from "./media/storage.js";
import type { RenderedBody, RenderOptions } from "./posts/body.js";
import type { Clock } from "./shared/clock.js";
import type { ContentScope } from "./shared/content-changes.js";

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE: deliveries may reach loopback, private and link-local addresses. */
  allowPrivate: boolean;
  /** How long a receiver may take to answer (10 s; tests shorten it). */
  timeoutMs: number;
}

/** Everything the domain services need from the outside world, wired once by the host. */
export interface CoreDeps {
  db: Kysely<Database>;
  /**
   * On SQLite, a read-only connection on another thread for reads that cost SQLite itself a
   * millisecond or more (a full-text search); absent on PostgreSQL, whose reads leave the
   * process anyway.
   */
  offThread?: ReadWorker;
  /**
   * On SQLite, how full-text matches are ranked: the search_rank extension when it is built
   * (decision 015), else FTS5's bm25 (the default).
   */
  searchRank?: SearchRanking["rank"];
  mailer: Mailer;
  storage: Storage;
  /**
   * Renders a Markdown body on the render thread (core/posts/render-thread.ts). Wired by the host,
   * so the site's pages (bundled apart from the server) and the API share its one thread.
   */
  renderMarkdown: (source: string, options: RenderOptions) => Promise<RenderedBody>;
  clock: Clock;
  /** Sign-in attempts per account (shared through Redis when several instances run). */
  loginAttempts: AttemptCounter;
  /**
   * Told after every write that may have changed what visitors see (`changingContent`), before
   * the service returns; never throws. Sign-ins, sign-outs, tokens and refused writes change no
   * page, so anyone sending them cannot make the host drop its kept renders. With a `scope`, the
   * write changed that alone (a post's likes or comments), and only what shows it is made again.
   */
  contentChanged: (scope?: ContentScope) => Promise<void>;
  /**
   * Told when a post is scheduled to go live at `at`, so this instance's publisher wakes then
   * rather than at its next regular check (decision 011).
   */
  postScheduled?: (at: Date) => void;
  /**
   * Told when an event or a delivery was queued in the outbox (decision 027), so this instance's
   * worker looks at once; absent in scripts (imports, seeds): another instance, or the next
   * start, sends what they queued.
   */
  queued?: () => void;
  /** Webhooks (decision 025): absent in scripts that deliver none (imports, seeds). */
  webhooks?: WebhookSettings;
  /** Newsletter mails a minute from this instance (NEWSLETTER_RATE; decision 028). */
  newsletterRate?: number;
  /**
   * The newsletter's mail templates (React Email and the CSS inliner), loaded with the first mail
   * rather than with the server. The host loads them: a dynamic import in core would land in the
   * site's bundle, which then costs memory to load (decision 028).
   */
  mailTemplates: () => Promise<typeof MailTemplates>;
  /** Whether accounts in their first day get the lower hourly allowances of core/spam. */
  newAccountBrakes: boolean;
  /** Told what a service let go of without failing the request (see `discardImages`). */
  log: { warn(details: object, message: string): void };
  site: {
    title: string;
    /** This site's absolute address, e.g. https://blog.example.com */
    publicUrl: string;
    /**
     * Absolute base of links in mail (PUBLIC_URL unless MAIL_LINK_URL names a front end hosted
     * elsewhere, which serves the same paths).
     */
    mailLinkUrl: string;
    defaultAvatarUrl: string;
  };
}
