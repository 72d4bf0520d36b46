import type { ViewCounter } from "../../core/stats/view-counter.js";
import { asBackground } from "../../db/background.js";

/** How often counted views are written (DESIGN.md 10: they reach the API within a minute). */
export const VIEW_FLUSH_MS = 10_000;

type Log = { warn(details: object, message: string): void };

export interface ViewStatsWriter {
  /** Stops, writing what was counted last. */
  stop(): Promise<void>;
}

/**
 * Writes the views an instance counted every few seconds, and once more as it stops (decision
 * 026). A write that fails keeps its views for the next one.
 */
export function startViewStats(
  counter: ViewCounter,
  options: { log: Log; flushEveryMs?: number | undefined },
): ViewStatsWriter {
  const every = options.flushEveryMs ?? VIEW_FLUSH_MS;
  let running: Promise<void> | undefined;
  let stopped = false;

  const flush = () => {
    running ??= counter
      .flush()
      .catch((error: unknown) => {
        options.log.warn({ err: error }, "could not write the counted views; trying again later");
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void asBackground(flush), every);
  timer.unref();
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await running;
      await flush();
    },
  };
}
