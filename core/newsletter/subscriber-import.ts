import type * as CsvParse from "csv-parse";
import { lazyModule } from "../../lib/lazy-module.js";
import { Readable } from "node:stream";
import {
  importSkipReasons as reasons,
  SUBSCRIBER_EMAIL_HEADERS,
  SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX,
  SUBSCRIBER_IMPORT_MAX_BYTES,
  SUBSCRIBER_IMPORT_MAX_ROWS,
  SubscriberImportOptionsSchema,
  subscriberMessages as messages,
  subscribeSchema,
  type SubscriberImportResponse,
} from "../../contract/newsletter.js";
import type { SubscriptionStatus } from "../../db/schema.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { invalid, tooLarge } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { subscribe } from "./subscriptions.js";

/** The CSV parser, loaded with the first import rather than with the server. */
const csvParse = lazyModule<typeof CsvParse>("csv-parse");

// Importing a list of subscribers from a CSV file (DESIGN.md 11, "Newsletters"; decision 028), as
// Ghost (members: id,email,name,...,subscribed_to_emails,...) and Substack (subscribers:
// email,active_subscription,...,email_disabled,...) export them: an admin's become the site's
// subscribers, a member's their own. With consent they are active at once; without, each new
// address is sent the confirmation a subscribe sends.

/** Addresses looked up or written by one statement (SQLite allows 32,766 variables a statement). */
const AT_ONCE = 500;
/** Confirmation mails sent side by side (each one is a few queries and an SMTP exchange). */
const MAILS_AT_ONCE = 4;

type Skipped = SubscriberImportResponse["skipped"][number];

/** A row of the file to import: the line it starts on and its address. */
interface Candidate {
  line: number;
  email: string;
}

const truthy = (value: string | undefined) => /^(true|yes|1)$/i.test(value?.trim() ?? "");
const falsy = (value: string | undefined) => /^(false|no|0)$/i.test(value?.trim() ?? "");

/** The text split into pieces, so a large file is parsed a piece per turn of the event loop. */
function* piecesOf(bytes: Buffer, size = 64 * 1024) {
  for (let from = 0; from < bytes.length; from += size) yield bytes.subarray(from, from + size);
}

interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

const isParsedRecord = (value: unknown): value is ParsedRecord =>
  typeof value === "object" && value !== null && "record" in value && "info" in value;

/**
 * The file's records, each with the line it starts on (the header is line 1). Line breaks are
 * made one kind first, so a line is a line whether the file ends them with CRLF, LF or CR.
 */
async function* recordsOf(file: Buffer) {
  const text = file
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n");
  const { CsvError, parse } = csvParse();
  const parser = Readable.from(piecesOf(Buffer.from(text, "utf8"))).pipe(
    parse({ info: true, relax_column_count: true, skip_empty_lines: true }),
  );
  try {
    for await (const parsed of parser) {
      if (!isParsedRecord(parsed)) continue;
      // The line it ends on, less the line breaks inside its quoted fields.
      const breaks = parsed.record.reduce((sum, field) => sum + field.split("\n").length - 1, 0);
      yield { line: parsed.info.lines - breaks, fields: parsed.record };
    }
  } catch (error) {
    if (error instanceof CsvError) throw invalid(`${messages.notCsv}: ${error.message}`);
    throw error;
  }
}

/** Why an export says not to mail a row, if it does (Ghost's, Substack's, or this site's own). */
function unsubscribedInExport(fields: string[], columns: Map<string, number>) {
  const cell = (name: string) => {
    const at = columns.get(name);
    return at === undefined ? undefined : fields[at];
  };
  return (
    falsy(cell("subscribed_to_emails")) ||
    truthy(cell("email_disabled")) ||
    /^(unsubscribed|bounced)$/i.test(cell("status")?.trim() ?? "")
  );
}

/** Reads the file: the rows to import, and those left out already with their reasons. */
async function readList(file: Buffer) {
  if (file.length > SUBSCRIBER_IMPORT_MAX_BYTES) throw tooLarge(messages.tooLarge);
  const candidates: Candidate[] = [];
  const skipped: Skipped[] = [];
  const firstLineOf = new Map<string, number>();
  let columns: Map<string, number> | undefined;
  let emailAt = -1;
  let rows = 0;
  for await (const { line, fields } of recordsOf(file)) {
    if (!columns) {
      columns = new Map(fields.map((name, at) => [name.trim().toLowerCase(), at]));
      emailAt = fields.findIndex((name) =>
        SUBSCRIBER_EMAIL_HEADERS.includes(name.trim().toLowerCase()),
      );
      if (emailAt < 0) throw invalid(messages.noEmailColumn);
      continue;
    }
    rows += 1;
    if (rows > SUBSCRIBER_IMPORT_MAX_ROWS) throw invalid(messages.tooManyRows);
    const address = subscribeSchema.shape.email.safeParse(fields[emailAt] ?? "");
    const email = address.success ? address.data.toLowerCase() : undefined;
    const first = email === undefined ? undefined : firstLineOf.get(email);
    if (email === undefined) skipped.push({ line, reason: reasons.invalid });
    else if (unsubscribedInExport(fields, columns)) {
      skipped.push({ line, reason: reasons.unsubscribedInExport });
    } else if (first !== undefined) skipped.push({ line, reason: reasons.repeated(first) });
    else {
      firstLineOf.set(email, line);
      candidates.push({ line, email });
    }
  }
  if (!columns) throw invalid(messages.noEmailColumn);
  return { candidates, skipped };
}

const chunksOf = <T>(items: readonly T[], size = AT_ONCE) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, at) =>
    items.slice(at * size, (at + 1) * size),
  );

/** What the scope already holds of these addresses, and which addresses bounced anywhere. */
async function statesOf(deps: Pick<CoreDeps, "db">, scopeKey: string, emails: string[]) {
  const held = new Map<string, { id: string; status: SubscriptionStatus }>();
  const bounced = new Set<string>();
  for (const chunk of chunksOf(emails)) {
    const rows = await deps.db
      .selectFrom("subscriptions")
      .select(["id", "email", "scope_key", "status"])
      .where("email", "in", chunk)
      .where((eb) => eb.or([eb("scope_key", "=", scopeKey), eb("status", "=", "bounced")]))
      .execute();
    for (const row of rows) {
      if (row.status === "bounced") bounced.add(row.email);
      if (row.scope_key === scopeKey) held.set(row.email, { id: row.id, status: row.status });
    }
  }
  return { held, bounced };
}

/** Sorts the rows to import into new addresses, waiting ones to activate, and the rest left out. */
function plan(
  candidates: Candidate[],
  states: Awaited<ReturnType<typeof statesOf>>,
  consent: boolean,
) {
  const fresh: Candidate[] = [];
  const waiting: (Candidate & { id: string })[] = [];
  const skipped: Skipped[] = [];
  for (const candidate of candidates) {
    const held = states.held.get(candidate.email);
    const skip = (reason: string) => skipped.push({ line: candidate.line, reason });
    if (states.bounced.has(candidate.email)) skip(reasons.bounced);
    else if (!held) fresh.push(candidate);
    else if (held.status === "active") skip(reasons.active);
    else if (held.status === "unsubscribed") skip(reasons.unsubscribed);
    else if (consent) waiting.push({ ...candidate, id: held.id });
    else skip(reasons.pending);
  }
  return { fresh, waiting, skipped };
}

type Deps = Pick<CoreDeps, "db" | "clock" | "mailer" | "site" | "log" | "mailTemplates">;

/** With consent: new addresses subscribed and waiting ones confirmed, in one transaction. */
async function subscribeAtOnce(
  deps: Deps,
  author: string | undefined,
  fresh: Candidate[],
  waiting: { id: string }[],
) {
  const now = iso(deps.clock());
  return deps.db.transaction().execute(async (trx) => {
    const added = new Set<string>();
    for (const chunk of chunksOf(fresh)) {
      const rows = await trx
        .insertInto("subscriptions")
        .values(
          chunk.map(({ email }) => ({
            id: newId(),
            email,
            scope_key: author ?? "site",
            author_id: author ?? null,
            status: "active" as const,
            created_at: now,
            confirmed_at: now,
            ended_at: null,
          })),
        )
        // Subscribed meanwhile (by the reader, or another import): that row stands.
        .onConflict((conflict) => conflict.columns(["email", "scope_key"]).doNothing())
        .returning("email")
        .execute();
      for (const row of rows) added.add(row.email);
    }
    let confirmed = 0;
    for (const chunk of chunksOf(waiting)) {
      const result = await trx
        .updateTable("subscriptions")
        .set({ status: "active", confirmed_at: now })
        .where(
          "id",
          "in",
          chunk.map((row) => row.id),
        )
        .where("status", "=", "pending")
        .executeTakeFirst();
      confirmed += Number(result.numUpdatedRows);
    }
    return { added, confirmed };
  });
}

/**
 * `POST /api/newsletter/subscribers/import`: the file's addresses subscribed to the site (an
 * admin's import) or to the member who imports them. Left out, each with its line and why: an
 * address that is none, one the export marks unsubscribed, a repeat, one already subscribed or
 * waiting, one that unsubscribed here, and one that bounced (never mailed again).
 */
export async function importSubscribers(
  deps: Deps,
  actor: Actor,
  file: Buffer,
  options: unknown,
): Promise<SubscriberImportResponse> {
  const consent = validate(SubscriberImportOptionsSchema, options).consent === "yes";
  const author = actor.isAdmin ? undefined : actor.id;
  const read = await readList(file);
  const states = await statesOf(
    deps,
    author ?? "site",
    read.candidates.map((row) => row.email),
  );
  const { fresh, waiting, skipped } = plan(read.candidates, states, consent);
  skipped.push(...read.skipped);
  let imported = 0;
  if (consent) {
    const { added, confirmed } = await subscribeAtOnce(deps, author, fresh, waiting);
    for (const row of fresh) {
      if (!added.has(row.email)) skipped.push({ line: row.line, reason: reasons.active });
    }
    imported = added.size + confirmed;
  } else {
    if (fresh.length > SUBSCRIBER_IMPORT_CONFIRMATIONS_MAX) {
      throw invalid(messages.tooManyConfirmations);
    }
    // The subscribe path itself: a pending subscription and its confirmation mail (at most three
    // an address a day), as if each had asked.
    const input = (email: string) => (author ? { email, authorId: author } : { email });
    for (const chunk of chunksOf(fresh, MAILS_AT_ONCE)) {
      await Promise.all(chunk.map((row) => subscribe(deps, undefined, input(row.email))));
    }
    imported = fresh.length;
  }
  return { imported, skipped: skipped.sort((a, b) => a.line - b.line) };
}
