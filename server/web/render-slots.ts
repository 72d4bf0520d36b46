/**
 * At most `slots` page renders at a time; the rest wait their turn, first come first served.
 * Rendering is CPU work: on a small machine, fifty renders at once finish no sooner than five at a
 * time, but each holds its page in memory meanwhile. Queued renders hold almost nothing.
 */
export function renderSlots(slots: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return async function run<T>(work: () => Promise<T>): Promise<T> {
    if (running < slots) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      release();
    }
  };
}
