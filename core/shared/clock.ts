export type Clock = () => Date;

let last = 0;

/**
 * Wall-clock time that never repeats within the process: two rows written in the same millisecond
 * still sort newest-first in the order they were made.
 */
export const systemClock: Clock = () => {
  const now = Date.now();
  last = now > last ? now : last + 1;
  return new Date(last);
};

export const iso = (date: Date): string => date.toISOString();

export const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms);

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
