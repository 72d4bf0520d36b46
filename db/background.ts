import { AsyncLocalStorage } from "node:async_hooks";

const background = new AsyncLocalStorage<true>();

/**
 * Runs a job's work (the outbox's worker, scheduled publishing) marked as background, so a
 * statement's watcher can tell it from a request's: tests count the statements a page costs,
 * and a worker that happens to look at that moment is not the page's.
 */
export function asBackground<T>(work: () => Promise<T>): Promise<T> {
  return background.run(true, work);
}

/** Whether the statement under way belongs to a job's work rather than a request's. */
export function inBackground(): boolean {
  return background.getStore() === true;
}

/** Told each statement's SQL, and whether a job's work ran it (`inBackground`). */
export type QueryWatcher = (sql: string, background: boolean) => void;
