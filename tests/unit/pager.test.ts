import { describe, expect, it } from "vitest";
import { GAP, pageWindow } from "../../app/features/posts/page-window.js";

describe("pageWindow", () => {
  it.each([
    [1, 1, [1]],
    [1, 3, [1, 2, 3]],
    [2, 7, [1, 2, 3, 4, GAP, 7]],
    [4, 7, [1, 2, 3, 4, 5, 6, 7]],
    [1, 1667, [1, 2, 3, GAP, 1667]],
    [500, 1667, [1, GAP, 498, 499, 500, 501, 502, GAP, 1667]],
    [1667, 1667, [1, GAP, 1665, 1666, 1667]],
    [5, 10, [1, 2, 3, 4, 5, 6, 7, GAP, 10]],
  ])("page %i of %i shows %j", (page, pages, expected) => {
    expect(pageWindow(page, pages)).toEqual(expected);
  });
});
