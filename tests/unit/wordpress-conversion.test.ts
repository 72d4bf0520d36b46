import { describe, expect, it } from "vitest";
import { HTML_DEPTH_MAX, limitHtmlDepth } from "../../core/porting/html-depth.js";
import { htmlToMarkdown } from "../../core/porting/html-to-markdown.js";
import { readWordpressExport } from "../../core/porting/wordpress.js";
import { autop, commentText, expandShortcodes } from "../../core/porting/wordpress-html.js";

// The WordPress conversion on hostile input (decision 019): no recursion whose depth the input
// decides, and no work that grows with the square of a post's length.

/** Inputs that made a pattern scan to the end again from each of their pieces. */
const REPEATED = {
  "unclosed comments": "<!--",
  "unclosed block comments": "<!-- wp:",
  "unclosed links": "<a",
  "lone angle brackets": "<",
  "unclosed shortcodes": "[a ",
  "shortcodes never closed": "[a]x",
  "links never closed": "<a href='x'>y",
  "unclosed preformatted": "<pre>",
  "items in paragraphs": "<p><li x",
  "unclosed images": "<img src",
  "spaces and tabs": " \t",
};

/** Just under the most HTML a post may have (ten times its Markdown limit). */
const POST_SIZE = 190_000;

/** How long one step may take on 190 KB: the quadratic ones took 15 s and more. */
const LINEAR_MS = 2_500;

function timed(step: () => unknown) {
  const start = performance.now();
  step();
  return performance.now() - start;
}

describe("converting a post of 190 KB", () => {
  for (const [name, piece] of Object.entries(REPEATED)) {
    it(`takes time in proportion to its length: ${name}`, () => {
      const html = piece.repeat(Math.ceil(POST_SIZE / piece.length)).slice(0, POST_SIZE);
      const notes: string[] = [];
      const steps = {
        shortcodes: () => expandShortcodes(html, { postId: "1", attachments: [] }, notes),
        paragraphs: () => autop(html),
        markdown: () => htmlToMarkdown(html),
        "comment text": () => commentText(html),
      };
      for (const [step, run] of Object.entries(steps))
        expect(timed(run), `${name}: ${step}`).toBeLessThan(LINEAR_MS);
    });
  }
});

/** How deep balanced HTML nests (every element ended, as limitHtmlDepth leaves it). */
function depthOf(html: string) {
  let depth = 0;
  let deepest = 0;
  for (const [, end, name = ""] of html.matchAll(/<(\/?)([a-zA-Z][^\s/>]*)[^>]*>/g)) {
    if (/^(br|img|hr|input|meta|link|wbr|source|col|area|embed|param|track|base)$/i.test(name))
      continue;
    depth += end === "/" ? -1 : 1;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

describe("nesting", () => {
  const NESTINGS = [
    ["<div>", "</div>"],
    ["<b>", "</b>"],
    ["<ul><li>", "</li></ul>"],
    ["<blockquote>", "</blockquote>"],
    ["<p><li", ""],
    ["<div/>", ""],
    ["<table><tr><td>", ""],
  ] as const;

  it("past HTML_DEPTH_MAX elements loses its tags and keeps its text", () => {
    for (const [open, close] of NESTINGS) {
      const html = `${open.repeat(5000)}> deep text${close.repeat(5000)}`;
      const markdown = htmlToMarkdown(html);
      expect(markdown, open).toContain("deep text");
      expect(depthOf(limitHtmlDepth(html)), open).toBeLessThanOrEqual(HTML_DEPTH_MAX);
    }
  });

  it("changes nothing in HTML a writer wrote", () => {
    const html =
      '<p>Hello <b>world</b> and <a href="https://example.com/?a=1&b=2" title="x > y">a link</a>.</p>' +
      "<ul><li>one</li><li>two <em>2</em></li></ul><blockquote><p>quoted</p></blockquote>" +
      "<pre><code>if (a &lt; b) {}</code></pre><img src=x.png alt=''><br>" +
      "<table><tr><td>cell</td></tr></table><script>if (a<b) x='</div>'</script>";
    expect(limitHtmlDepth(html)).toBe(html);
  });

  it("ends what the writer left open, as a browser reads it", () => {
    expect(limitHtmlDepth("<ul><li>one<li>two</ul><p>a<p>b")).toBe(
      "<ul><li>one</li><li>two</li></ul><p>a</p><p>b</p>",
    );
    // An end tag out of order: the formatting it ended goes on after it, as browsers show it.
    expect(limitHtmlDepth("<b><i>x</b>y</i>")).toBe("<b><i>x</i></b><i>y</i>");
    expect(htmlToMarkdown("<b><i>x</b>y</i>")).toBe("***x****y*");
  });
});

/** A WordPress export of `count` published posts of `size` characters of HTML each. */
function exportOf(count: number, size: number) {
  const items = Array.from(
    { length: count },
    (_, index) => `<item>
      <title>Post ${String(index)}</title>
      <dc:creator>writer</dc:creator>
      <content:encoded><![CDATA[<p>${"x".repeat(size - 7)}</p>]]></content:encoded>
      <wp:post_id>${String(index + 1)}</wp:post_id>
      <wp:post_date_gmt>2024-01-02 03:04:05</wp:post_date_gmt>
      <wp:post_name>post-${String(index)}</wp:post_name>
      <wp:status>publish</wp:status>
      <wp:post_type>post</wp:post_type>
    </item>`,
  );
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><link>https://wp.example.com</link>${items.join("")}</channel></rss>`;
}

describe("the whole import's work", () => {
  it("is bounded: past the budget, each further post is a line of the report", () => {
    const blog = readWordpressExport(exportOf(5, 1000), { sourceMax: 3500 });
    expect(blog.posts.map((post) => post.ref)).toEqual(["post-0", "post-1", "post-2"]);
    expect(blog.skipped.map((line) => line.item)).toEqual(["post post-3", "post post-4"]);
    expect(blog.skipped[0]?.reason).toMatch(/^this import already converted .* its most/);
  });

  it("reads a whole export of a usual size with the default budget", () => {
    expect(readWordpressExport(exportOf(3, 1000)).posts).toHaveLength(3);
  });
});
