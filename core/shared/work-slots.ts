/**
 * At most `count` pieces of heavy work at a time; the rest wait their turn, first come first
 * served. The work here is CPU-bound (a page render, a whole list compressed, an image decoded): on
 * a small machine, fifty at once finish no sooner than a few at a time, but each holds its memory
 * meanwhile. Waiting work holds almost nothing.
 */
export function workSlots(count: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const free = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  /** Waits for a slot; call the result once the work is over (calling it again does nothing). */
  async function acquire(): Promise<() => void> {
    if (running < count) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      free();
    };
  }

  /** Runs `work` in a slot, freed however the work ends. */
  async function run<T>(work: () => Promise<T>): Promise<T> {
    const release = await acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  return { acquire, run };
}
