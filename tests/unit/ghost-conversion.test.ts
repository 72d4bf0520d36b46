import { describe, expect, it } from "vitest";
import { readGhostExport } from "../../core/porting/ghost.js";

// Ghost's documents on hostile input (decision 019): nesting past 32 levels and a whole import's
// budget are each a post's line in the report, never the import's end.

/** A Ghost 5 JSON export of these posts (the fields the reader reads). */
function exportOf(posts: { slug: string; html?: string; lexical?: string }[]) {
  return JSON.stringify({
    db: [
      {
        data: {
          posts: posts.map((post, index) => ({
            id: String(index + 1),
            title: post.slug,
            slug: post.slug,
            html: post.html ?? null,
            lexical: post.lexical ?? null,
            mobiledoc: null,
            status: "published",
            created_at: "2024-01-02T03:04:05.000Z",
            published_at: "2024-01-02T03:04:05.000Z",
          })),
          users: [],
          tags: [],
          posts_tags: [],
        },
      },
    ],
  });
}

/** A Lexical document of one paragraph whose text sits `depth` links deep, written as text. */
function nestedLexical(depth: number) {
  const link = '{"type":"link","url":"https://example.com/","children":[';
  const text = '{"type":"text","text":"deep text"}';
  const paragraph = `${link.repeat(depth)}${text}${"]}".repeat(depth)}`;
  return `{"root":{"children":[{"type":"paragraph","children":[${paragraph}]}]}}`;
}

describe("a Ghost export", () => {
  it("refuses a post nested past 32 levels as its own line, and reads the others", () => {
    const blog = readGhostExport(
      exportOf([
        { slug: "deep", lexical: nestedLexical(5000) },
        { slug: "shallow", lexical: nestedLexical(3) },
      ]),
    );
    expect(blog.posts.map((post) => post.ref)).toEqual(["shallow"]);
    expect(blog.posts[0]?.markdown).toContain("deep text");
    expect(blog.skipped).toEqual([
      {
        item: "post deep",
        reason: "its body could not be read (its document nests deeper than 32 levels)",
      },
    ]);
  });

  it("converts no more than its budget: each post past it is a line of the report", () => {
    const html = `<p>${"x".repeat(993)}</p>`;
    const blog = readGhostExport(
      exportOf(["one", "two", "three"].map((slug) => ({ slug, html }))),
      { sourceMax: 2500 },
    );
    expect(blog.posts.map((post) => post.ref)).toEqual(["one", "two"]);
    expect(blog.skipped.map((line) => line.item)).toEqual(["post three"]);
    expect(blog.skipped[0]?.reason).toMatch(/^this import already converted .* its most/);
  });
});
