import type { CoreDeps } from "../../core/deps.js";
import { asBackground } from "../../db/background.js";
import { nextPublishTime, publishDuePosts } from "../../core/posts/scheduled-publishing.js";

/** How often an instance looks for posts scheduled elsewhere (another instance, an import). */
export const PUBLISH_CHECK_MS = 5000;

export interface ScheduledPublisher {
  /** A post was scheduled here for `at`: wake then, not at the next regular check. */
  scheduled(at: Date): void;
  /** Stops waking; waits for a check under way. */
  stop(): Promise<void>;
}

/**
 * Puts scheduled posts live at their time (decision 011). Each check publishes what is due, then
 * sleeps until the next scheduled time or the regular check, whichever comes first; a post
 * scheduled on this instance moves the wake-up to its time. Several instances may check at once:
 * the claim publishes each post once. A failed check (the database away) waits for the next one.
 */
export function startScheduledPublishing(
  deps: CoreDeps,
  options: {
    log: {
      info(details: object, message: string): void;
      warn(details: object, message: string): void;
    };
    checkEveryMs?: number | undefined;
  },
): ScheduledPublisher {
  const checkEveryMs = options.checkEveryMs ?? PUBLISH_CHECK_MS;
  let timer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  let running: Promise<void> | undefined;
  let stopped = false;

  const sleepUntil = (at: number) => {
    if (stopped || running || at >= wakeAt) return;
    clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(
      () => {
        wakeAt = Infinity;
        running = asBackground(check).finally(() => {
          running = undefined;
          sleepUntil(nextWake);
        });
      },
      Math.max(0, at - deps.clock().getTime()),
    );
    // The server's socket keeps the process alive; a script that never closes the app may exit.
    timer.unref();
  };

  let nextWake = 0;
  const check = async () => {
    const now = deps.clock().getTime();
    nextWake = now + checkEveryMs;
    try {
      const published = await publishDuePosts(deps);
      if (published.length > 0) options.log.info({ posts: published }, "published scheduled posts");
      const next = await nextPublishTime(deps);
      if (next) nextWake = Math.min(nextWake, next.getTime());
    } catch (error) {
      options.log.warn({ err: error }, "could not publish scheduled posts; trying again later");
    }
  };

  sleepUntil(deps.clock().getTime());
  return {
    scheduled(at) {
      // A check under way reads the new schedule when it looks for the next time.
      if (running) {
        nextWake = Math.min(nextWake, at.getTime());
        return;
      }
      sleepUntil(at.getTime());
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
