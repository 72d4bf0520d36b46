import { randomUUID } from "node:crypto";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const newId = (): string => randomUUID();

/** Ids come from URLs; anything that is not one of ours is simply "not found". */
export const isId = (value: unknown): value is string =>
  typeof value === "string" && UUID.test(value);
