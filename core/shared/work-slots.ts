/** Every slot is taken and the line of waiting work is as long as it may be. */
export class NoFreeTurn extends Error {
  constructor() {
    super("No free turn");
    this.name = "NoFreeTurn";
  }
}

/**
 * At most `count` pieces of heavy work at a time; the rest wait their turn, first come first
 * served. The work here is CPU-bound (a page render, a whole list compressed, an image decoded): on
 * a small machine, fifty at once finish no sooner than a few at a time, but each holds its memory
 * meanwhile. Waiting work holds little, but not nothing (an upload waits with its bytes): past
 * `maxWaiting` waiting, more work is refused with NoFreeTurn.
 */
export function workSlots(count: number, options: { maxWaiting?: number } = {}) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const free = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  /** Waits for its turn; gives up, leaving the line, if `signal` aborts (the caller went away). */
  function wait(signal: AbortSignal | undefined) {
    if (options.maxWaiting !== undefined && waiting.length >= options.maxWaiting) {
      return Promise.reject(new NoFreeTurn());
    }
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const leave = () => {
        const at = waiting.indexOf(turn);
        if (at >= 0) waiting.splice(at, 1);
        reject(signal?.reason as Error);
      };
      const turn = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      signal?.addEventListener("abort", leave, { once: true });
      waiting.push(turn);
    });
  }

  /** Waits for a slot; call the result once the work is over (calling it again does nothing). */
  async function acquire(signal?: AbortSignal): Promise<() => void> {
    if (running < count) running += 1;
    else await wait(signal);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      free();
    };
  }

  /** Runs `work` in a slot, freed however the work ends. */
  async function run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await acquire(signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  return { acquire, run };
}
