import { createHash, randomBytes } from "node:crypto";

/** 256 random bits, URL-safe: bearer tokens and the tokens in mailed links. */
export const randomToken = (): string => randomBytes(32).toString("base64url");

/** Tokens are stored only as their SHA-256: a leaked table grants nothing. */
export const hashToken = (token: string): string =>
  createHash("sha256").update(token).digest("hex");
