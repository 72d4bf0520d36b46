import type { CoreDeps } from "../../core/deps.js";
import {
  claimDueDeliveries,
  deliver,
  pruneDeliveries,
  releaseDeliveries,
} from "../../core/integrations/webhooks.js";
import { HOUR_MS } from "../../core/shared/clock.js";

/** How often an instance looks for deliveries that are due (retries, other instances' events). */
export const WEBHOOK_CHECK_MS = 5000;

export interface WebhookOutboxWorker {
  /** Looks now: deliveries were just queued on this instance. */
  wake(): void;
  /** Stops looking; waits for the tries under way. */
  stop(): Promise<void>;
}

type Log = { warn(details: object, message: string): void };

/**
 * Sends webhook deliveries from the outbox (decision 025): every check claims due deliveries, ten
 * at a time, and tries them side by side (one slow receiver does not hold the others past its 10
 * seconds), until none is due. Several instances may check at once: each try is claimed by one.
 */
export function startWebhookOutbox(
  deps: Pick<CoreDeps, "db" | "clock" | "webhooks" | "log">,
  options: { log: Log; checkEveryMs?: number | undefined; leaseMs?: number | undefined },
): WebhookOutboxWorker {
  const checkEveryMs = options.checkEveryMs ?? WEBHOOK_CHECK_MS;
  let stopped = false;
  const stopping = () => stopped;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let prunedAt = 0;

  const check = async () => {
    try {
      for (;;) {
        if (stopping()) return;
        const claimed = await claimDueDeliveries(deps, { leaseMs: options.leaseMs });
        if (claimed.length === 0) break;
        if (stopping()) {
          await releaseDeliveries(deps, claimed);
          return;
        }
        await Promise.all(claimed.map((delivery) => deliver(deps, delivery)));
      }
      if (deps.clock().getTime() - prunedAt > HOUR_MS) {
        prunedAt = deps.clock().getTime();
        await pruneDeliveries(deps);
      }
    } catch (error) {
      options.log.warn({ err: error }, "could not send webhooks; trying again later");
    }
  };

  const run = () => {
    clearTimeout(timer);
    running = check().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        run();
      } else {
        schedule();
      }
    });
  };

  const schedule = () => {
    if (stopping()) return;
    timer = setTimeout(run, checkEveryMs);
    timer.unref();
  };

  run();
  return {
    wake() {
      if (stopping()) return;
      if (running) again = true;
      else run();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
