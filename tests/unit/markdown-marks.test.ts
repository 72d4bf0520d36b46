import { describe, expect, it } from "vitest";
import {
  applyEdit,
  describeImageEdit,
  imageMarkdown,
  markEdit,
  undescribedImages,
  type Mark,
  type Selected,
} from "../../app/features/forms/markdown-marks.js";

/** A text with its selection marked by `[` and `]` (a caret by `|`), as the tests write it. */
function parse(marked: string): Selected {
  const caret = marked.indexOf("|");
  if (caret !== -1) return { value: marked.replace("|", ""), start: caret, end: caret };
  const start = marked.indexOf("[");
  const end = marked.indexOf("]") - 1;
  return { value: marked.replace("[", "").replace("]", ""), start, end };
}

function show({ value, start, end }: Selected) {
  return start === end
    ? `${value.slice(0, start)}|${value.slice(start)}`
    : `${value.slice(0, start)}[${value.slice(start, end)}]${value.slice(end)}`;
}

const run = (mark: Mark, marked: string) => {
  const selected = parse(marked);
  return show(applyEdit(selected.value, markEdit(mark, selected)));
};

describe("toolbar marks", () => {
  it("wraps a selection, keeping its edge blanks outside, and unwraps it again", () => {
    expect(run("bold", "Pack [light] bags")).toBe("Pack **[light]** bags");
    expect(run("bold", "Pack **[light]** bags")).toBe("Pack [light] bags");
    expect(run("italic", "Pack[ light ]bags")).toBe("Pack _[light]_ bags");
    expect(run("bold", "Pack |")).toBe("Pack **[bold text]**");
  });

  it("writes inline code for part of a line and a fenced block for lines", () => {
    expect(run("code", "run [npm ci] first")).toBe("run `[npm ci]` first");
    expect(run("code", "Steps:\n[npm ci\nnpm test]")).toBe(
      "Steps:\n```\n[npm ci\nnpm test]\n```\n",
    );
  });

  it("links the selection with its address selected, or links a selected address", () => {
    expect(run("link", "see [the map]")).toBe("see [the map]([https://])");
    expect(run("link", "see [https://example.com]")).toBe("see [[link text]](https://example.com)");
  });

  it("prefixes every line the selection touches, and takes a prefix away", () => {
    expect(run("quote", "a\n[b\nc]")).toBe("a\n[> b\n> c]");
    expect(run("quote", "a\n[> b\n> c]")).toBe("a\n[b\nc]");
    expect(run("list", "one|")).toBe("- one|");
    expect(run("heading", "### Sm|all")).toBe("## Sm|all");
    expect(run("heading", "## Big|")).toBe("Big|");
  });
});

describe("image descriptions", () => {
  const url = "http://x.test/uploads/images/a/lg.webp";

  it("writes a description on one line, its brackets and backslashes taken literally", () => {
    expect(imageMarkdown(url)).toBe(`![](${url})`);
    expect(imageMarkdown(url, "  A [red]\n bike \\ ")).toBe(`![A \\[red\\] bike \\\\](${url})`);
  });

  it("finds the images written without one, in order", () => {
    const text = `![](${url}) and ![kept](b.webp) then ![](c.webp)`;
    expect(undescribedImages(text)).toEqual([url, "c.webp"]);
  });

  it("describes the first undescribed image at an address, and nothing once it is gone", () => {
    const text = `Before ![](${url}) after`;
    const edit = describeImageEdit(text, url, "A bike");
    expect(edit).toEqual({
      from: 7,
      to: 7 + `![](${url})`.length,
      insert: `![A bike](${url})`,
      start: 7 + `![A bike](${url})`.length,
      end: 7 + `![A bike](${url})`.length,
    });
    expect(describeImageEdit("no image here", url, "A bike")).toBeUndefined();
  });
});
