import { describe, expect, it } from "vitest";
import { tagSuggestions } from "../../app/features/posts/tag-suggestions.js";

// Issue 32: the tags field suggests known tags for every tag typed, not only the first.
describe("tagSuggestions", () => {
  const known = ["rust", "travel", "trains"];

  it("offers every known tag for the first one", () => {
    expect(tagSuggestions("", known)).toEqual(known);
    expect(tagSuggestions("tr", known)).toEqual(known);
  });

  it("offers the rest after the tags already typed, as the field reads", () => {
    expect(tagSuggestions("Rust, tr", known)).toEqual(["rust, travel", "rust, trains"]);
    expect(tagSuggestions("rust,travel,", known)).toEqual(["rust, travel, trains"]);
  });
});
