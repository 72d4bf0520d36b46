import { releaseFreeMemory } from "../../db/release-memory.js";

/**
 * How long a kept render or answer stays once nobody asks for it (issue 45, finding 8): a page read
 * at least once a minute is always served from memory; the rest is let go, so the memory a burst
 * of reading filled comes back once it is over instead of staying at every budget's top.
 */
export const KEPT_IDLE_MS = 60_000;
/** How often every kept set drops what has been idle that long. */
const SWEEP_EVERY_MS = 15_000;

interface Entry<V> {
  value: V;
  size: number;
  usedAt: number;
}

export interface KeptOptions<V> {
  /** The budget: entries are pushed out least recently used first beyond it. */
  maxBytes: number;
  /** Roughly what keeping `value` under `key` costs, in bytes. */
  sizeOf: (key: string, value: V) => number;
  /** An entry larger than this is not kept at all (a quarter of the budget unless said). */
  largestBytes?: number;
}

/**
 * Values kept by key within a byte budget: the least recently used pushed out first, and any not
 * used for `KEPT_IDLE_MS` dropped by a sweep every few seconds. The one home of the page caches',
 * shells' and kept answers' bookkeeping.
 */
export class KeptEntries<V> {
  // Least recently used first: a Map keeps insertion order, and a use moves an entry last.
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;

  constructor(private readonly options: KeptOptions<V>) {
    sweptWhenIdle(this);
  }

  /** The value kept under `key`, without counting it as used. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** The value kept under `key`, now its most recently used. */
  use(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    entry.usedAt = now;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` under `key` (in place of what was there); false when too large to keep. */
  keep(key: string, value: V, now = Date.now()): boolean {
    this.delete(key);
    const size = this.options.sizeOf(key, value);
    if (size > (this.options.largestBytes ?? this.options.maxBytes / 4)) return false;
    this.entries.set(key, { value, size, usedAt: now });
    this.bytes += size;
    this.pushOut();
    return true;
  }

  /** Counts `bytes` more for `value` if it is what `key` holds (a compressed form added to it). */
  grow(key: string, value: V, bytes: number) {
    const entry = this.entries.get(key);
    if (entry?.value !== value) return;
    entry.size += bytes;
    this.bytes += bytes;
    this.pushOut();
  }

  delete(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.size;
  }

  /** Drops every entry nobody used for `KEPT_IDLE_MS` before `now`; says how many bytes went. */
  sweep(now: number) {
    const before = this.bytes;
    for (const [key, entry] of this.entries) {
      // Least recently used first: the first one used since ends the sweep.
      if (now - entry.usedAt <= KEPT_IDLE_MS) break;
      this.delete(key);
    }
    return before - this.bytes;
  }

  get size() {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private pushOut() {
    for (const key of this.entries.keys()) {
      if (this.bytes <= this.options.maxBytes) break;
      this.delete(key);
    }
  }
}

/**
 * After a sweep let this much go, the garbage is collected at once where the runtime allows it
 * (`npm start` runs with --expose-gc), and the C allocator gives back what it then holds free: a
 * site gone quiet allocates too little for the runtime to look again soon, and glibc keeps freed
 * memory for the next allocation, so the memory a burst grew would stay (decision 030).
 */
const COLLECT_AFTER_BYTES = 4 * 1024 * 1024;
const RELEASE_AFTER_MS = 1000;

/**
 * A full collection that gives the pages it empties back to the system: "last-resort" from V8 12
 * (Node 22), where a plain one keeps them; Node 20's V8 collects nothing when given options, and
 * its plain collection gives them back (measured on 20.20, 22.23 and 24.22).
 */
function collectGarbage() {
  const { gc } = globalThis;
  if (!gc) return;
  if (Number(process.versions.v8.split(".")[0]) >= 12) {
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
  } else {
    gc();
  }
}

// Every kept set is swept by one timer that keeps neither them nor the process alive.
const swept = new Set<WeakRef<{ sweep(now: number): number }>>();
let sweeper: NodeJS.Timeout | undefined;

function sweptWhenIdle(kept: { sweep(now: number): number }) {
  swept.add(new WeakRef(kept));
  sweeper ??= setInterval(() => {
    const now = Date.now();
    let dropped = 0;
    for (const ref of swept) {
      const live = ref.deref();
      if (live) dropped += live.sweep(now);
      else swept.delete(ref);
    }
    if (dropped >= COLLECT_AFTER_BYTES) {
      collectGarbage();
      // The runtime frees the collected buffers' memory on a thread of its own, after the collection.
      setTimeout(releaseFreeMemory, RELEASE_AFTER_MS).unref();
    }
  }, SWEEP_EVERY_MS).unref();
}
