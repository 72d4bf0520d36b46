import type { CoreDeps } from "../../core/deps.js";
import { channels, type Channel } from "../../core/outbox/channels.js";
import { claimDue, prune, release, settle, type OutboxItem } from "../../core/outbox/outbox.js";
import { HOUR_MS } from "../../core/shared/clock.js";
import { asBackground } from "../../db/background.js";

/** How often an instance looks for rows that are due (retries, other instances' events). */
export const OUTBOX_CHECK_MS = 5000;
/**
 * A wake looks at once and again this much later: on PostgreSQL the first look may come before
 * the commit of the write that woke it.
 */
const SECOND_LOOK_MS = 250;

export interface OutboxWorker {
  /** Looks now: events or deliveries were just queued on this instance. */
  wake(): void;
  /** Stops looking; waits for the tries under way. */
  stop(): Promise<void>;
}

type Log = {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
};

export interface OutboxOptions {
  log: Log;
  checkEveryMs?: number | undefined;
  leaseMs?: number | undefined;
}

/**
 * The outbox's one worker (decision 027). Each channel is a lane of its own, so a receiver that
 * holds a webhook for its 10 seconds holds neither events nor mail: a lane claims its due rows and
 * tries them until none is due, then looks again after `checkEveryMs`, or at once when woken. An
 * event lane that dispatched something wakes the others. Several instances may look at once:
 * each try is claimed by one. A failed look (the database away) waits for the next one.
 */
export function startOutbox(deps: CoreDeps, options: OutboxOptions): OutboxWorker {
  const checkEveryMs = options.checkEveryMs ?? OUTBOX_CHECK_MS;
  let stopped = false;
  // Read through a function: a plain check would be thought unchanged across the awaits.
  const stopping = () => stopped;
  let prunedAt = 0;

  const tryOne = async (channel: Channel, item: OutboxItem) => {
    let outcome;
    try {
      outcome = await channel.send(deps, item);
    } catch (error) {
      outcome = { status: "retry" as const, error: String(error).slice(0, 200), cause: error };
    }
    if (outcome === "settled") return;
    const settled = await settle(deps.db, deps.clock, channel.rules, item, outcome);
    if (outcome.status === "retry" && channel.failure) {
      options.log.warn(
        { err: outcome.cause, id: item.id, attempts: item.attempts, retryAt: settled.retryAt },
        channel.failure,
      );
    }
  };

  /** Serves one channel until nothing of it is due: how many rows it tried. */
  const serve = async (channel: Channel) => {
    const gathered = (await channel.prepare?.(deps)) ?? 0;
    if (gathered > 0)
      options.log.info({ rows: gathered, channel: channel.name }, "gathered into the outbox");
    let tried = 0;
    for (;;) {
      if (stopping()) return tried;
      const claimed = await claimDue(deps, channel.name, channel.rules, {
        leaseMs: options.leaseMs,
      });
      if (claimed.length === 0) return tried;
      if (stopping()) {
        await release(deps, claimed);
        return tried;
      }
      if (channel.sideBySide) {
        await Promise.all(claimed.map((item) => tryOne(channel, item)));
      } else {
        for (const [index, item] of claimed.entries()) {
          if (stopping()) {
            await release(deps, claimed.slice(index));
            return tried;
          }
          await tryOne(channel, item);
        }
      }
      tried += claimed.length;
    }
  };

  const pruneFinished = async () => {
    if (deps.clock().getTime() - prunedAt <= HOUR_MS) return;
    prunedAt = deps.clock().getTime();
    for (const channel of channels) await prune(deps, channel.name, channel.rules.keptMs);
  };

  const lanes = channels.map((channel) => {
    let running: Promise<void> | undefined;
    let again = false;
    let timer: NodeJS.Timeout | undefined;

    const check = async () => {
      try {
        const tried = await serve(channel);
        // What a dispatch queued goes out now, not at the other lanes' next look.
        if (channel.name === "event" && tried > 0) wakeAll();
        if (channel.name === "event") await pruneFinished();
      } catch (error) {
        options.log.warn(
          { err: error, channel: channel.name },
          "could not serve the outbox; trying again later",
        );
      }
    };
    const schedule = (inMs: number) => {
      if (stopping()) return;
      timer = setTimeout(run, inMs);
      // The server's socket keeps the process alive; a script that never closes the app may exit.
      timer.unref();
    };
    const run = () => {
      clearTimeout(timer);
      running = asBackground(check).finally(() => {
        running = undefined;
        if (again) {
          again = false;
          schedule(SECOND_LOOK_MS);
        } else {
          schedule(checkEveryMs);
        }
      });
    };
    run();
    return {
      wake() {
        if (stopping()) return;
        // Now (or after the look under way), and again shortly: the write that woke this lane
        // may not have committed yet.
        again = true;
        if (!running) run();
      },
      async stop() {
        clearTimeout(timer);
        await running;
      },
    };
  });
  const wakeAll = () => {
    for (const lane of lanes) lane.wake();
  };

  return {
    wake: wakeAll,
    async stop() {
      stopped = true;
      await Promise.all(lanes.map((lane) => lane.stop()));
    },
  };
}
