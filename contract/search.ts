import { z } from "./zod.js";
import { SEARCH_MAX } from "./limits.js";
import { requiredString } from "./validation.js";

/** Inputs of `GET /api/search` and the `/search` page (DESIGN.md 9, "Reading"). */
export const searchMessages = {
  required: "Search text is required",
  tooLong: `Search text must be at most ${String(SEARCH_MAX)} characters long`,
  /** Operators alone (`-`, `""`, `-word`), punctuation alone, or only words too common to count. */
  noWords: "Search text must include a word to look for",
  pageNumber: "pageNumber must be a whole number from 1",
} as const;

const m = searchMessages;

/** `GET /api/search?q=text&pageNumber=n`. */
export const SearchQuerySchema = z.object({
  q: requiredString(m.required).max(SEARCH_MAX, m.tooLong),
  pageNumber: z
    .string({ error: m.pageNumber })
    .regex(/^[1-9]\d{0,8}$/, m.pageNumber)
    .transform(Number)
    .default(1),
});
export type SearchQuery = z.infer<typeof SearchQuerySchema>;
