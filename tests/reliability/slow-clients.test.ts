import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST_DESCRIPTION_MAX } from "../../contract/limits.js";
import { bodyColumns } from "../../core/posts/body.js";
import { newId } from "../../core/shared/ids.js";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Issue 14, point 4: a client that sends slowly or reads slowly (or never) gets a bounded share of
// the server. Real sockets, with the limits shortened so the test takes seconds.

const TIMEOUTS = { requestMs: 2000, headersMs: 1000, idleMs: 1000, slotMs: 2500 };
/** More than loopback's socket buffers hold (4 MB sent, up to 32 MB received), so a stalled
 * reader really stalls the answer. */
const POSTS = 1600;

let server: TestServer;
const port = () => Number(new URL(server.url).port);

beforeAll(async () => {
  server = await startTestServer({}, { timeouts: TIMEOUTS });
  watchConnections();
  const author = await buildUser(server, client(server.url));
  const now = Date.now();
  const description = "x".repeat(POST_DESCRIPTION_MAX);
  const body = bodyColumns(description, "markdown", { followLinks: false, imageBases: [] });
  for (let start = 0; start < POSTS; start += 100) {
    await server.app.deps.db
      .insertInto("posts")
      .values(
        Array.from({ length: 100 }, (_, i) => {
          const at = new Date(now - (start + i) * 1000).toISOString();
          return {
            id: newId(),
            user_id: author.id,
            title: `Post ${String(start + i)}`,
            description,
            ...body,
            category: "music",
            image_key: "seed/none.webp",
            status: "published" as const,
            publish_at: null,
            published_at: at,
            created_at: at,
            updated_at: at,
          };
        }),
      )
      .execute();
  }
});
afterAll(() => server.close());

interface Exchange {
  socket: net.Socket;
  /** Bytes of answer received so far. */
  received: () => number;
  /**
   * Milliseconds from the start until the server ended the connection. Read on the server's side:
   * a client that does not read never learns of it.
   */
  closed: Promise<number>;
}

/** The server's end of each connection, by the client's port. */
const serverEnds = new Map<number, Promise<void>>();

function watchConnections() {
  server.app.server.server.on("connection", (socket: net.Socket) => {
    const ended = new Promise<void>((resolve) => {
      socket.once("close", () => {
        resolve();
      });
    });
    serverEnds.set(socket.remotePort ?? 0, ended);
  });
}

/** A raw connection that sends `head` (and nothing else unless the test writes more). */
async function open(head: string, options: { read: boolean }): Promise<Exchange> {
  const started = performance.now();
  const socket = net.connect(port(), "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = 0;
  socket.on("error", () => undefined);
  socket.on("data", (chunk: Buffer) => {
    received += chunk.length;
  });
  if (!options.read) socket.pause();
  socket.write(head);
  // The server sees the connection a moment after the client does.
  for (let i = 0; i < 100 && !serverEnds.has(socket.localPort ?? -1); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const serverEnd = serverEnds.get(socket.localPort ?? -1);
  if (!serverEnd) throw new Error("the server never saw the connection");
  const closed = serverEnd.then(() => performance.now() - started);
  return { socket, received: () => received, closed };
}

const wholeListRequest = "GET /api/posts HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";

/** A whole list read by fetch, in full, as an ordinary client would. */
async function readWholeList() {
  const reply = await fetch(`${server.url}/api/posts`, { signal: AbortSignal.timeout(20_000) });
  const posts = (await reply.json()) as unknown[];
  return { status: reply.status, count: posts.length };
}

async function livezWithin(ms: number) {
  const started = performance.now();
  const reply = await fetch(`${server.url}/livez`, { signal: AbortSignal.timeout(ms) });
  expect(reply.status).toBe(200);
  return performance.now() - started;
}

describe("slow clients", () => {
  it("cuts off a client that never reads its whole list, and the next one is served", async () => {
    const stalled = await open(wholeListRequest, { read: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const next = readWholeList();
    // Cut once nothing has moved for idleMs, though it holds the only turn for whole lists.
    expect(await stalled.closed).toBeLessThan(TIMEOUTS.slotMs);
    stalled.socket.destroy();
    expect(await next).toEqual({ status: 200, count: POSTS });
  });

  it("ends the turn of a client that reads too slowly to be idle, and the next one is served", async () => {
    const slow = await open(wholeListRequest, { read: true });
    // Steady but slow: a chunk, then a short pause, so the answer keeps moving (never idle) yet
    // would take longer than a turn to arrive whole.
    slow.socket.on("data", () => {
      slow.socket.pause();
      setTimeout(() => slow.socket.resume(), 10);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Two wait behind it, longer than the idle limit: waiting is not idling.
    const next = readWholeList();
    const after = readWholeList();
    const closedAfter = await slow.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(TIMEOUTS.slotMs - 100);
    expect(closedAfter).toBeLessThan(TIMEOUTS.slotMs + 3000);
    expect(slow.received()).toBeLessThan(POSTS * POST_DESCRIPTION_MAX);
    expect(server.logs.some((line) => line.includes("answer not taken in time"))).toBe(true);
    expect(await next).toEqual({ status: 200, count: POSTS });
    expect(await after).toEqual({ status: 200, count: POSTS });
  });

  it("cuts off bodies and headers that trickle in, while /livez keeps answering", async () => {
    const bodies = await Promise.all(
      Array.from({ length: 300 }, () =>
        open(
          "POST /api/auth/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
            "Content-Length: 10000\r\n\r\n{",
          { read: true },
        ),
      ),
    );
    const headers = await open("GET /livez HTTP/1.1\r\nHost: test\r\n", { read: true });
    // Never idle: a byte every 300 ms from each, so only the request limits can end them.
    const drip = setInterval(() => {
      for (const exchange of [...bodies, headers]) {
        if (!exchange.socket.destroyed) exchange.socket.write(exchange === headers ? "X" : " ");
      }
    }, 300);
    try {
      for (let i = 0; i < 5; i += 1) {
        expect(await livezWithin(1000)).toBeLessThan(1000);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const closedAt = await Promise.all(bodies.map((exchange) => exchange.closed));
      expect(Math.max(...closedAt)).toBeLessThan(TIMEOUTS.requestMs + 3000);
      expect(await headers.closed).toBeLessThan(TIMEOUTS.headersMs + 3000);
    } finally {
      clearInterval(drip);
    }
    expect(await livezWithin(1000)).toBeLessThan(1000);
  });
});
