import { diffLines, diffWordsWithSpace } from "diff";
import { withLineFeeds } from "../../../contract/validation.js";

/** A piece of a diff: text both versions have, or text only the revision (`removed`) or the post has. */
export interface DiffPart {
  text: string;
  change: "same" | "added" | "removed";
}

export interface RevisionDiff {
  title: DiffPart[];
  category: DiffPart[];
  tags: DiffPart[];
  /** The body line by line: what reading the two versions side by side shows. */
  body: DiffPart[];
}

const partsOf = (changes: { value: string; added: boolean; removed: boolean }[]): DiffPart[] =>
  changes.map((change) => ({
    text: change.value,
    change: change.added ? "added" : change.removed ? "removed" : "same",
  }));

/**
 * What changed from a revision to the post as it is now, made on the server (the diff library
 * stays out of the pages' scripts): words for the short fields, lines for the body.
 */
export function revisionDiff(
  revision: { title: string; description: string; category: string; tags: string[] },
  current: { title: string; description: string; category: string; tags: string[] },
): RevisionDiff {
  return {
    title: partsOf(diffWordsWithSpace(revision.title, current.title)),
    category: partsOf(diffWordsWithSpace(revision.category, current.category)),
    tags: partsOf(diffWordsWithSpace(revision.tags.join(", "), current.tags.join(", "))),
    // Revisions stored before line endings were made one (a form's CRLF) read as they are now.
    body: partsOf(
      diffLines(withLineFeeds(revision.description), withLineFeeds(current.description)),
    ),
  };
}
