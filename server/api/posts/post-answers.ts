import type { Actor } from "../../../core/users/policies.js";
import type { CoreDeps } from "../../../core/deps.js";
import { commentsOfPostForApi, getPost } from "../../../core/posts/posts-service.js";
import { commentsVersion, type ContentVersion } from "../../web/content-version.js";
import { KeptEntries } from "../../web/kept-entries.js";

/** Posts' comments kept as JSON at once, at most (a post with 2,000 comments holds ~0.6 MB). */
const KEPT_COMMENTS_BYTES = 16 * 1024 * 1024;

/**
 * A post's JSON put together from kept pieces (decision 029): its comments' JSON is kept by post
 * under where its comments have got to, so a like (which moves the post on, not its comments)
 * makes again only the post's row and likers, whatever the number of comments. The answer is
 * exactly what `JSON.stringify` of the whole post would give: the comments are its last field.
 */
export function postAnswers(deps: CoreDeps, contentVersion: ContentVersion) {
  const kept = new KeptEntries<{ version: string; json: string }>({
    maxBytes: KEPT_COMMENTS_BYTES,
    sizeOf: (postId, entry) => postId.length + entry.json.length,
  });

  /** The post's comments as JSON: kept, or read and kept under the version read before. */
  const commentsJson = async (postId: string, version: string | undefined) => {
    const entry = kept.use(postId);
    if (entry && entry.version === version) return entry.json;
    const json = JSON.stringify(await commentsOfPostForApi(deps, postId));
    if (version !== undefined) kept.keep(postId, { version, json });
    return json;
  };

  return {
    /** `GET /api/posts/:id`'s answer for `viewer`, and the post's status (who may keep it). */
    async answer(viewer: Actor | undefined, postId: string) {
      // Read before the database, so what is kept under it shows at least that much.
      const state = await contentVersion.state([postId]);
      const post = await getPost(deps, viewer, postId, ["comments"]);
      const comments = await commentsJson(post._id, state && commentsVersion(state));
      const whole = JSON.stringify(post);
      const empty = '"comments":[]}';
      if (!whole.endsWith(empty))
        throw new Error("A post's comments must be its JSON's last field");
      return { status: post.status, json: `${whole.slice(0, -"[]}".length)}${comments}}` };
    },
  };
}

export type PostAnswers = ReturnType<typeof postAnswers>;
