import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request the receiver got, as it came over the wire. */
export interface ReceivedHook {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body: the bytes the signature covers. */
  body: string;
  /** When the whole request had arrived (Date.now()). */
  at: number;
  /** What the receiver did: a status code, or "hang" (no answer at all). */
  answer: number | "hang";
  /** When the sender gave up on a request held open ("hang"), if it did. */
  closedAt?: number;
}

/** How the receiver answers one request: a status (with headers), or not at all. */
export type Answer = number | "hang" | { status: number; headers: Record<string, string> };

/** The body every delivery carries (DESIGN.md 10, "Integrations"). */
export interface HookBody<T = Record<string, unknown>> {
  type: string;
  timestamp: string;
  data: T;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:port`, no path. */
  url: string;
  port: number;
  /** Every request, in the order they arrived. */
  received: ReceivedHook[];
  /** A URL of its own under this receiver (a webhook endpoint), and its path. */
  endpoint(name: string): { url: string; path: string };
  /** Requests that came to one path. */
  at(path: string): ReceivedHook[];
  /** The next answers for a path, used up one request each; after them, 200. */
  answer(path: string, answers: Answer[]): void;
  /** Waits this long before answering every request to a path (a slow receiver). */
  slow(path: string, ms: number): void;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1 that records every request (headers and raw body) and answers
 * as it is told per path: a status sequence, a delay, or holding the request without an answer.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const plans = new Map<string, Answer[]>();
  const delays = new Map<string, number>();
  const held = new Set<http.ServerResponse>();
  let counter = 0;

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = (request.url ?? "/").split("?")[0] ?? "/";
      const answer = plans.get(path)?.shift() ?? 200;
      const hook: ReceivedHook = {
        path,
        method: request.method ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        answer: typeof answer === "object" ? answer.status : answer,
      };
      received.push(hook);
      if (answer === "hang") {
        held.add(response);
        response.on("close", () => {
          hook.closedAt = Date.now();
          held.delete(response);
        });
        return;
      }
      const send = () => {
        const status = typeof answer === "object" ? answer.status : answer;
        const headers = typeof answer === "object" ? answer.headers : {};
        response.writeHead(status, { "content-type": "text/plain", ...headers });
        response.end(status >= 200 && status < 300 ? "ok" : "not now");
      };
      const delay = delays.get(path) ?? 0;
      if (delay > 0) setTimeout(send, delay);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${String(port)}`;

  return {
    url,
    port,
    received,
    endpoint(name) {
      counter += 1;
      const path = `/hooks/${name}-${String(counter)}`;
      return { url: `${url}${path}`, path };
    },
    at: (path) => received.filter((hook) => hook.path === path),
    answer(path, answers) {
      plans.set(path, [...answers]);
    },
    slow(path, ms) {
      delays.set(path, ms);
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/** A request's headers as the Standard Webhooks library takes them (single strings). */
export function headersOf(hook: ReceivedHook): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(hook.headers)) {
    if (typeof value === "string") out[name] = value;
    else if (Array.isArray(value)) out[name] = value.join(", ");
  }
  return out;
}

/**
 * Checks a delivery's signature with the `standardwebhooks` package (not with the server's own
 * code) and returns its parsed body; throws WebhookVerificationError when it does not verify.
 */
export function verifiedBody<T = Record<string, unknown>>(
  hook: ReceivedHook,
  secret: string,
): HookBody<T> {
  return new Webhook(secret).verify(hook.body, headersOf(hook)) as HookBody<T>;
}

/** Polls `check` until it holds, or fails naming `what`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Lets a moment pass, so whatever should not happen has had its chance to. */
export const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));
