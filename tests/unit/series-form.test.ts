import { describe, expect, it } from "vitest";
import {
  SERIES_ADD,
  SERIES_FORM,
  SERIES_MOVE,
  seriesPostField,
  seriesPostsFromForm,
} from "../../app/features/series/series-form.js";

/** The fields a series' page form sends: its rows' post ids in order, a move, a post to add. */
function sent(ids: string[], extra: { move?: string; add?: string } = {}) {
  const fields: Record<string, string> = { [SERIES_FORM]: "1", title: "A series" };
  ids.forEach((id, index) => {
    fields[seriesPostField(index)] = id;
  });
  if (extra.move !== undefined) fields[SERIES_MOVE] = extra.move;
  if (extra.add !== undefined) fields[SERIES_ADD] = extra.add;
  return fields;
}

describe("the posts a series' form sends (decision 032)", () => {
  it("leaves the posts as they are when the form has no rows (not this form)", () => {
    expect(seriesPostsFromForm({ title: "A series" })).toBeUndefined();
  });

  it("keeps the rows' order, and an empty series empty", () => {
    expect(seriesPostsFromForm(sent(["a", "b", "c"]))).toEqual(["a", "b", "c"]);
    expect(seriesPostsFromForm(sent([]))).toEqual([]);
  });

  it("moves a row up or down by its number, and not past either end", () => {
    expect(seriesPostsFromForm(sent(["a", "b", "c"], { move: "2:up" }))).toEqual(["a", "c", "b"]);
    expect(seriesPostsFromForm(sent(["a", "b", "c"], { move: "0:down" }))).toEqual(["b", "a", "c"]);
    expect(seriesPostsFromForm(sent(["a", "b", "c"], { move: "0:up" }))).toEqual(["a", "b", "c"]);
    expect(seriesPostsFromForm(sent(["a", "b", "c"], { move: "2:down" }))).toEqual(["a", "b", "c"]);
  });

  it("removes a row, and ignores a move it does not know or a row that is not there", () => {
    expect(seriesPostsFromForm(sent(["a", "b", "c"], { move: "1:remove" }))).toEqual(["a", "c"]);
    for (const move of ["1:sideways", "9:up", "-1:up", "x:down", "1"]) {
      expect(seriesPostsFromForm(sent(["a", "b", "c"], { move })), move).toEqual(["a", "b", "c"]);
    }
  });

  it("puts the post chosen to add at the end, once, with the move applied first", () => {
    expect(seriesPostsFromForm(sent(["a", "b"], { add: "d" }))).toEqual(["a", "b", "d"]);
    expect(seriesPostsFromForm(sent(["a", "b"], { add: "a" }))).toEqual(["a", "b"]);
    expect(seriesPostsFromForm(sent(["a", "b"], { add: " " }))).toEqual(["a", "b"]);
    expect(seriesPostsFromForm(sent(["a", "b"], { move: "1:up", add: "d" }))).toEqual([
      "b",
      "a",
      "d",
    ]);
  });

  it("leaves a repeated post for the rules to refuse", () => {
    expect(seriesPostsFromForm(sent(["a", "a"]))).toEqual(["a", "a"]);
  });
});
