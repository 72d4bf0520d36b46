import { SERIES_POSTS_MAX } from "../../../contract/series-rules.js";

// What a series' page form sends, and how its action reads it (decision 032): no React here, so
// the rules are tested on their own (tests/unit/series-form.test.ts), as the navigation rows are.

/** A post's row in the form, in the series' order: `post-0` holds the first post's id. */
export const seriesPostField = (index: number) => `post-${String(index)}`;

/** The submit button that moves or removes a row: `seriesMove` = `2:up`. */
export const SERIES_MOVE = "seriesMove";
export const SERIES_MOVES = ["up", "down", "remove"] as const;

/** Present in a form that has the post rows: a form without them leaves the posts as they are. */
export const SERIES_FORM = "seriesForm";

/** The "Add a post" choice: put at the end when the form is sent. */
export const SERIES_ADD = "addPost";

/**
 * The series' posts in the order the form sent them, with the move or removal a row's button
 * asked for applied by that row's number, and the post chosen to add put at the end (once); or
 * undefined from a form without the rows.
 */
export function seriesPostsFromForm(
  fields: Record<string, string | undefined>,
): string[] | undefined {
  if (fields[SERIES_FORM] === undefined) return undefined;
  // No form of ours has more rows than a series holds; one more is read, so that a series sent
  // past its limit is refused rather than cut.
  const rows: string[] = [];
  for (let index = 0; index <= SERIES_POSTS_MAX; index++) {
    rows.push(fields[seriesPostField(index)]?.trim() ?? "");
  }
  const ids = rows.filter((id) => id !== "");
  const [movedRow = "", move] = (fields[SERIES_MOVE] ?? "").split(":");
  const known = SERIES_MOVES.some((one) => one === move);
  const row = /^\d+$/.test(movedRow) ? Number(movedRow) : -1;
  const target = known ? rows[row] : undefined;
  const at = target ? ids.indexOf(target) : -1;
  if (target && at !== -1) {
    ids.splice(at, 1);
    const to = move === "up" ? at - 1 : move === "down" ? at + 1 : undefined;
    if (to !== undefined) ids.splice(Math.min(Math.max(to, 0), ids.length), 0, target);
  }
  const added = fields[SERIES_ADD]?.trim() ?? "";
  if (added !== "" && !ids.includes(added)) ids.push(added);
  return ids;
}
