import type { CoreDeps } from "../deps.js";

/**
 * Runs a write that changes what visitors see (a post, a comment, a like, a category, a user's
 * public fields or photo, a delete) and tells the host afterwards, so kept renders are dropped.
 * Also when the write failed: a write can fail after its commit (a connection lost while the
 * commit was acknowledged), and a page kept from before it would then be served as current.
 */
export async function changingContent<T>(
  deps: Pick<CoreDeps, "contentChanged">,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } finally {
    await deps.contentChanged();
  }
}
