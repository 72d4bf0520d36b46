import { describe, expect, it } from "vitest";
import { isNavigationUrl } from "../../contract/navigation.js";
import {
  NAVIGATION_FORM,
  NAVIGATION_MOVE,
  navigationField,
  navigationFromForm,
} from "../../app/features/admin/navigation-form.js";

/** The fields a site settings form sends: header rows as given (blank ones included). */
function sent(header: [label: string, url: string][], move?: string) {
  const fields: Record<string, string> = { [NAVIGATION_FORM]: "1" };
  header.forEach(([label, url], index) => {
    fields[navigationField("header", index, "label")] = label;
    fields[navigationField("header", index, "url")] = url;
  });
  if (move) fields[NAVIGATION_MOVE] = move;
  return fields;
}
const labels = (fields: Record<string, string>) =>
  navigationFromForm(fields)?.header.map((link) => link.label);

describe("the navigation rows a site settings form sends (decision 032)", () => {
  it("leaves navigation as it is when the form has no rows (a page from before them)", () => {
    expect(navigationFromForm({ title: "A site" })).toBeUndefined();
  });

  it("drops blank rows and keeps half-filled ones for the rules to name", () => {
    expect(
      navigationFromForm(
        sent([
          ["A", "/a"],
          ["", ""],
          ["", "/c"],
        ]),
      ),
    ).toEqual({
      header: [
        { label: "A", url: "/a" },
        { label: "", url: "/c" },
      ],
      footer: [],
    });
  });

  it("moves and removes the row whose button was pressed, by its number in the form", () => {
    const rows: [string, string][] = [
      ["A", "/a"],
      ["B", "/b"],
      ["C", "/c"],
    ];
    expect(labels(sent(rows, "header:1:up"))).toEqual(["B", "A", "C"]);
    expect(labels(sent(rows, "header:1:down"))).toEqual(["A", "C", "B"]);
    expect(labels(sent(rows, "header:1:remove"))).toEqual(["A", "C"]);
    expect(labels(sent(rows, "header:0:up"))).toEqual(["A", "B", "C"]);
    expect(labels(sent(rows, "header:2:down"))).toEqual(["A", "B", "C"]);
    // A row emptied before the press: the buttons still act on the rows they belong to.
    const emptied: [string, string][] = [
      ["", ""],
      ["B", "/b"],
      ["C", "/c"],
    ];
    expect(labels(sent(emptied, "header:1:remove"))).toEqual(["C"]);
    expect(labels(sent(emptied, "header:2:up"))).toEqual(["C", "B"]);
    // Another place's button, a blank row's, or nonsense moves nothing.
    for (const move of ["footer:1:up", "header:7:remove", "header:x:up", "header:1:sideways"]) {
      expect(labels(sent(rows, move)), move).toEqual(["A", "B", "C"]);
    }
  });
});

describe("a navigation link's address", () => {
  it.each([
    "/",
    "/posts",
    "/tag/go?page=2#top",
    "/rss.xml",
    "https://example.org/a",
    "HTTP://example.org",
  ])("takes %s", (url) => {
    expect(isNavigationUrl(url)).toBe(true);
  });

  it.each([
    "",
    "posts",
    "//evil.example",
    "/\\evil.example",
    "/..//evil.example",
    "/\t/evil.example",
    "/a\u0000b",
    "/a\u007fb",
    "/a b",
    "javascript:alert(1)",
    "mailto:a@example.org",
    "https://",
    "ftp://example.org",
    `/${"a".repeat(2000)}`,
  ])("refuses %j", (url) => {
    expect(isNavigationUrl(url)).toBe(false);
  });
});
