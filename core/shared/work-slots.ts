/** Every slot is taken and the line of waiting work is as long as it may be. */
export class NoFreeSlot extends Error {
  constructor() {
    super("No free slot");
    this.name = "NoFreeSlot";
  }
}

/** Runs a part of the work in a slot with the slot given back until the part is done. */
export type OutsideSlot = <T>(part: () => Promise<T>) => Promise<T>;

/**
 * At most `count` pieces of heavy work at a time; the rest wait their turn, first come first
 * served. The work here is CPU-bound (a page render, a whole list compressed, an image decoded): on
 * a small machine, fifty at once finish no sooner than a few at a time, but each holds its memory
 * meanwhile. Waiting work holds little, but not nothing (an upload waits with its bytes): past
 * `maxWaiting` waiting, more work is refused with NoFreeSlot.
 */
export function workSlots(count: number, options: { maxWaiting?: number } = {}) {
  let running = 0;
  const waiting: (() => void)[] = [];
  // The next in line starts in a later turn of the event loop, never straight from the release:
  // work whose every step is a promise (synchronous SQLite, React's render) would otherwise run the
  // whole line in one go, and answers finished meanwhile (compressed, ready to send) waited for it.
  const free = () => {
    const next = waiting.shift();
    if (next) setImmediate(next);
    else running -= 1;
  };

  /** Waits for its turn; gives up, leaving the line, if `signal` aborts (the caller went away). */
  function wait(signal: AbortSignal | undefined) {
    if (options.maxWaiting !== undefined && waiting.length >= options.maxWaiting) {
      return Promise.reject(new NoFreeSlot());
    }
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const leave = () => {
        const at = waiting.indexOf(turn);
        // Out of the line already: the turn is on its way, and passes itself on (below).
        if (at < 0) return;
        waiting.splice(at, 1);
        reject(signal?.reason as Error);
      };
      const turn = () => {
        signal?.removeEventListener("abort", leave);
        if (signal?.aborted) {
          reject(signal.reason as Error);
          free();
          return;
        }
        resolve();
      };
      signal?.addEventListener("abort", leave, { once: true });
      waiting.push(turn);
    });
  }

  /** Waits for a slot; call the result once the work is over (calling it again does nothing). */
  async function acquire(signal?: AbortSignal): Promise<() => void> {
    if (running < count) {
      running += 1;
      // A free slot too is taken in a later turn of the loop (see `free`): a request's work that
      // never waits for I/O would otherwise run inside the callback that read the request, one
      // request after another, and a few slots would limit nothing.
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) {
        free();
        throw signal.reason as Error;
      }
    } else await wait(signal);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      free();
    };
  }

  /**
   * Runs `work` in a slot, freed however the work ends. A part of the work that waits on something
   * else, `outsideSlot(part)` (one at a time), gives the slot back meanwhile and takes its turn again after.
   */
  async function run<T>(
    work: (outsideSlot: OutsideSlot) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    let release = await acquire(signal);
    const outsideSlot: OutsideSlot = async (part) => {
      release();
      try {
        return await part();
      } finally {
        release = await acquire(signal);
      }
    };
    try {
      return await work(outsideSlot);
    } finally {
      release();
    }
  }

  return { acquire, run };
}

/** The one limiter of heavy work at once: renders, whole lists, image decodes (decision 005). */
export type WorkSlots = ReturnType<typeof workSlots>;
