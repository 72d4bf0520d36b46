import { describe, expect, it } from "vitest";
import { parseSearchText } from "../../core/search/search-text.js";
import { snippetOf } from "../../core/search/snippet.js";

// Snippets read a body's words as the index does (unicode61: runs of letters, digits and marks),
// by a scan of their own rather than a regular expression: these are the edges of that scan.

const marked = (text: string, q: string) =>
  snippetOf(text, parseSearchText(q))
    .filter((segment) => segment.match)
    .map((segment) => segment.text);

describe("snippet words", () => {
  it("are letters of any script, with their marks, and digits", () => {
    expect(marked("Ärger über den Zaun.", "ärger")).toEqual(["Ärger"]);
    expect(marked("Un cafe\u0301 noir.", "cafe\u0301")).toEqual(["cafe\u0301"]);
    expect(marked("Tokyo is 東京 in 日本語.", "東京")).toEqual(["東京"]);
    expect(marked("The 𝐀lpha release, version 42.", "𝐀lpha 42")).toEqual(["𝐀lpha", "42"]);
  });

  it("end at punctuation, underscores, spaces and lone surrogates", () => {
    expect(marked("The river's edge.", "river")).toEqual(["river"]);
    expect(marked("snake_case and kebab-case", "case")).toEqual(["case", "case"]);
    expect(marked("garden\ud800river", "river")).toEqual(["river"]);
  });

  it("keep the text between them as it was, whole", () => {
    const text = "Quiet  river,\n\nquiet — river!";
    const segments = snippetOf(text, parseSearchText('"quiet river"'));
    expect(segments.map((segment) => segment.text).join("")).toBe(text);
    expect(segments.filter((segment) => segment.match).map((segment) => segment.text)).toEqual([
      "Quiet",
      "river",
      "quiet",
      "river",
    ]);
  });
});
