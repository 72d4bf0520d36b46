export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export const iso = (date: Date): string => date.toISOString();

export const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms);

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
