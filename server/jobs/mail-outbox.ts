import type { CoreDeps } from "../../core/deps.js";
import {
  claimDueMail,
  deliverMail,
  gatherDueMail,
  pruneSentMail,
  releaseMail,
} from "../../core/conversation-mail/outbox.js";
import { HOUR_MS } from "../../core/shared/clock.js";

/** How often an instance looks for mail to gather and send. */
export const MAIL_CHECK_MS = 5000;

export interface MailOutboxWorker {
  /** Stops looking; waits for a send under way. */
  stop(): Promise<void>;
}

type Log = {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
};

/**
 * Sends conversation mail from the outbox (decision 017): every check gathers the recipients whose
 * mail is due into outbox rows, then claims and sends rows until none is due. Several instances
 * may check at once: each row is claimed by one. A failed check (the database away) waits for the
 * next one.
 */
export function startMailOutbox(
  deps: Pick<CoreDeps, "db" | "clock" | "mailer" | "site" | "log">,
  options: { log: Log; checkEveryMs?: number | undefined; leaseMs?: number | undefined },
): MailOutboxWorker {
  const checkEveryMs = options.checkEveryMs ?? MAIL_CHECK_MS;
  let stopped = false;
  // Read through a function: a plain check would be thought unchanged across the awaits.
  const stopping = () => stopped;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let prunedAt = 0;

  const check = async () => {
    try {
      const gathered = await gatherDueMail(deps);
      if (gathered > 0) options.log.info({ mails: gathered }, "gathered conversation mail");
      for (;;) {
        if (stopping()) return;
        const claimed = await claimDueMail(deps, { leaseMs: options.leaseMs });
        if (claimed.length === 0) break;
        for (const [index, mail] of claimed.entries()) {
          if (stopping()) {
            await releaseMail(
              deps,
              claimed.slice(index).map((left) => left.id),
            );
            return;
          }
          await deliverMail(deps, mail);
        }
      }
      if (deps.clock().getTime() - prunedAt > HOUR_MS) {
        prunedAt = deps.clock().getTime();
        await pruneSentMail(deps);
      }
    } catch (error) {
      options.log.warn({ err: error }, "could not send conversation mail; trying again later");
    }
  };

  const schedule = () => {
    if (stopping()) return;
    timer = setTimeout(() => {
      running = check().finally(() => {
        running = undefined;
        schedule();
      });
    }, checkEveryMs);
    // The server's socket keeps the process alive; a script that never closes the app may exit.
    timer.unref();
  };

  running = check().finally(() => {
    running = undefined;
    schedule();
  });
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
