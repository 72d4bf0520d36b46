import { describe, expect, it } from "vitest";
import { PageCache, type CachedPage } from "../../server/web/page-cache.js";

// One answer made at a time per key and content version; the HTTP test of this
// (tests/api/shared-answers.test.ts) can only overlap requests on PostgreSQL, so the waiting
// itself is proven here, on any engine.

const cacheOf = () => new PageCache({ maxBytes: 1_000_000, maxAgeMs: 60_000 });

const pageOf = (version: string, text: string): CachedPage => ({
  version,
  storedAt: Date.now(),
  contentType: "text/html; charset=utf-8",
  body: Buffer.from(text),
  etag: `"${text}"`,
  csp: undefined,
  encoded: new Map(),
});

/** Whether `promise` has settled once everything already queued has run. */
async function settled(promise: Promise<unknown>) {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("PageCache: answers being made", () => {
  it("has nothing to wait for when nobody is making the answer", async () => {
    expect(await cacheOf().whenMade("/", "v1")).toBeUndefined();
  });

  it("makes readers wait for the one making it, then gives them all what it kept", async () => {
    const cache = cacheOf();
    const done = cache.startMaking("/", "v1");
    const waiting = [cache.whenMade("/", "v1"), cache.whenMade("/", "v1")];
    expect(await settled(Promise.all(waiting))).toBe(false);

    const page = pageOf("v1", "home");
    cache.set("/", page);
    done();
    expect(await Promise.all(waiting)).toEqual([page, page]);
  });

  it("lets readers go, with nothing, when the answer could not be kept", async () => {
    const cache = cacheOf();
    const done = cache.startMaking("/", "v1");
    const waiting = cache.whenMade("/", "v1");
    done();
    expect(await waiting).toBeUndefined();
    // And the next reader makes it afresh instead of waiting on the finished attempt.
    expect(await settled(cache.whenMade("/", "v1"))).toBe(true);
  });

  it("gives waiters an answer too large to keep, made once for all of them", async () => {
    const cache = new PageCache({ maxBytes: 8_000, maxAgeMs: 60_000 });
    const done = cache.startMaking("/api/posts", "v1");
    const waiting = [cache.whenMade("/api/posts", "v1"), cache.whenMade("/api/posts", "v1")];
    const everything = pageOf("v1", "x".repeat(5_000));
    cache.set("/api/posts", everything);
    expect(cache.size.entries).toBe(0);
    done(everything);
    expect(await Promise.all(waiting)).toEqual([everything, everything]);
    // Compressed once for all who hold it, without counting in the budget of a cache it is not in.
    const first = cache.encode("/api/posts", everything, "gzip");
    expect(cache.encode("/api/posts", everything, "gzip")).toBe(first);
    expect(cache.size.bytes).toBe(0);
  });

  it("keeps other pages and other versions out of the wait", async () => {
    const cache = cacheOf();
    const done = cache.startMaking("/", "v1");
    expect(await cache.whenMade("/posts", "v1")).toBeUndefined();
    expect(await cache.whenMade("/", "v2")).toBeUndefined();
    done();
  });
});

describe("PageCache: what an entry holds", () => {
  it("keeps each compressed form on memory of its own, the size it counts", () => {
    const cache = cacheOf();
    const page = pageOf("v1", "<p>A paragraph of a page.</p>".repeat(2_000));
    cache.set("/", page);
    for (const encoding of ["br", "gzip"] as const) {
      const encoded = cache.encode("/", page, encoding);
      expect(encoded.length).toBeLessThan(page.body.length / 10);
      // Not a view of the larger chunk zlib wrote into (16 KiB, or a 64 KiB pool block on Node 24).
      expect(encoded.buffer.byteLength, encoding).toBe(encoded.length);
    }
  });
});
