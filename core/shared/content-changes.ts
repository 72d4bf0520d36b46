import type { CoreDeps } from "../deps.js";

/**
 * What a write changed, when it is narrower than "anything": one post's likes or comments. They
 * show on that post's page and answers and as counts in the API's lists, nowhere else (decision
 * 021), so a like does not make every kept page on the site again.
 */
export interface ContentScope {
  postId: string;
  /**
   * Its comments changed (one written, edited or deleted), not only its likes or its own fields:
   * what is kept of its comments alone (their JSON, decision 029) is then made again.
   */
  comments?: boolean;
}

/**
 * Runs a write that changes what visitors see (a post, a comment, a like, a category, a user's
 * public fields or photo, a delete) and tells the host afterwards, so kept renders are dropped.
 * Also when the write failed: a write can fail after its commit (a connection lost while the
 * commit was acknowledged), and a page kept from before it would then be served as current.
 */
export async function changingContent<T>(
  deps: Pick<CoreDeps, "contentChanged">,
  write: () => Promise<T>,
  scope?: ContentScope,
): Promise<T> {
  try {
    return await write();
  } finally {
    await deps.contentChanged(scope);
  }
}
