import { describe, expect, it } from "vitest";
import { revisionDiff } from "../../app/features/posts/revision-diff.server.js";

describe("a revision's diff", () => {
  it("marks only the lines the writer changed, a revision stored with CRLF included", () => {
    const fields = { title: "T", category: "C", tags: [] };
    const diff = revisionDiff(
      { ...fields, description: "One.\r\nTwo.\r\nThree." },
      { ...fields, description: "One.\nTwo, changed.\nThree." },
    );
    expect(diff.body.filter((part) => part.change !== "same").map((part) => part.text)).toEqual([
      "Two.\n",
      "Two, changed.\n",
    ]);
    expect(diff.body.filter((part) => part.change === "same").map((part) => part.text)).toEqual([
      "One.\n",
      "Three.",
    ]);
  });
});
