import type { Writable } from "node:stream";
import type { Clock } from "../core/shared/clock.js";
import type { AdminCredentials } from "../core/users/bootstrap-admin.js";
import type { QueryWatcher } from "../db/background.js";

/** How long a client may take over its part of an exchange before the connection is ended. */
export interface ClientTimeouts {
  /** Receiving one request, headers and body: a 7 MB image needs about 500 kbit/s to fit in it. */
  requestMs: number;
  /** Receiving the headers alone (a client that trickles them holds a connection for nothing). */
  headersMs: number;
  /**
   * No byte moving either way for this long ends the connection: a body that stopped coming, an
   * answer nobody reads, a request left waiting in a queue.
   */
  idleMs: number;
  /** The longest one answer may hold a slot others wait for (the whole list of posts). */
  slotMs: number;
}

export const CLIENT_TIMEOUTS: ClientTimeouts = {
  requestMs: 120_000,
  headersMs: 20_000,
  idleMs: 30_000,
  slotMs: 60_000,
};

export interface AppOptions {
  /** Where log lines go (tests read them); stdout by default. */
  logStream?: Writable;
  clock?: Clock;
  /** Told the SQL of every query the server runs and whether a job ran it (tests count them). */
  onQuery?: QueryWatcher;
  /** URLs per sitemap file; 50,000 (the protocol's limit) unless a test lowers it. */
  sitemapUrlsMax?: number;
  /** Pages rendered at once; two per core unless a test says. */
  renderSlots?: number;
  /** Tests: render each member page from a shell whole too, failing where they differ. */
  verifyMemberPages?: boolean;
  /** Told once when start-up creates an admin with a generated password. */
  onAdminCreated?: (credentials: AdminCredentials) => void;
  /** Shorter limits for tests that play slow clients. */
  timeouts?: Partial<ClientTimeouts>;
  /** How often to look for posts scheduled on other instances (PUBLISH_CHECK_MS unless a test says). */
  publishCheckMs?: number;
  /** How often to look for due events, mail and webhooks (OUTBOX_CHECK_MS unless a test says). */
  outboxCheckMs?: number;
  /** How often counted views are written (VIEW_FLUSH_MS unless a test says). */
  viewFlushMs?: number;
  /** Agents one address may be a reader by in a day (AGENTS_PER_ADDRESS unless a test says). */
  viewAgentsPerAddress?: number;
  /** Webhooks: how long a receiver may take (tests). */
  webhookTimeoutMs?: number;
  /** SQLite's search_rank extension: the built one unless a test says another, or null for none. */
  searchRankExtension?: string | null;
}
