import zlib from "node:zlib";
import type { Actor } from "../../../core/users/policies.js";
import type { CoreDeps } from "../../../core/deps.js";
import { commentsOfPostForApi, getPost } from "../../../core/posts/posts-service.js";
import { commentsVersion, type ContentVersion } from "../../web/content-version.js";
import { deflatedPiece, gzipOfPieces, type DeflatedPiece } from "../../web/gzip-pieces.js";
import { KeptEntries } from "../../web/kept-entries.js";
import { LARGE_BODY_BYTES } from "../../web/page-cache.js";

/** Posts' comments kept as JSON at once, at most (a post with 2,000 comments holds ~0.6 MB). */
const KEPT_COMMENTS_BYTES = 16 * 1024 * 1024;

/** A post's comments' JSON, and (once an answer is sent compressed) it compressed, kept. */
interface KeptComments {
  postId: string;
  version: string | undefined;
  json: Buffer;
  piece?: DeflatedPiece;
}

/** `GET /api/posts/:id`'s answer in pieces: the post up to its comments, and them. */
export interface PostAnswer {
  status: string;
  /** The post's JSON up to its comments' value: `{…,"comments":`. */
  head: Buffer;
  comments: KeptComments;
}

const CLOSE = Buffer.from("}");
const CLOSE_PIECE = deflatedPiece(CLOSE);

/**
 * A post's JSON put together from kept pieces (decision 029): its comments' JSON is kept by post
 * under where its comments have got to, so a like (which moves the post on, not its comments)
 * makes again only the post's row and likers, whatever the number of comments. The answer is
 * exactly what `JSON.stringify` of the whole post would give: the comments are its last field.
 */
export function postAnswers(deps: CoreDeps, contentVersion: ContentVersion) {
  const kept = new KeptEntries<KeptComments>({
    maxBytes: KEPT_COMMENTS_BYTES,
    sizeOf: (postId, entry) =>
      postId.length + entry.json.length + (entry.piece?.deflated.length ?? 0),
  });

  /** The post's comments as JSON: kept, or read and kept under the version read before. */
  const commentsOf = async (postId: string, version: string | undefined) => {
    const entry = kept.use(postId);
    if (entry && entry.version === version) return entry;
    const made: KeptComments = {
      postId,
      version,
      json: Buffer.from(JSON.stringify(await commentsOfPostForApi(deps, postId))),
    };
    if (version !== undefined) kept.keep(postId, made);
    return made;
  };

  return {
    /** `GET /api/posts/:id`'s answer for `viewer`, and the post's status (who may keep it). */
    async answer(viewer: Actor | undefined, postId: string): Promise<PostAnswer> {
      // Read before the database, so what is kept under it shows at least that much.
      const state = await contentVersion.state([postId]);
      const post = await getPost(deps, viewer, postId, ["comments"]);
      const comments = await commentsOf(post._id, state && commentsVersion(state));
      const whole = JSON.stringify(post);
      const empty = '"comments":[]}';
      if (!whole.endsWith(empty))
        throw new Error("A post's comments must be its JSON's last field");
      return {
        status: post.status,
        head: Buffer.from(whole.slice(0, -"[]}".length)),
        comments,
      };
    },

    /** The answer's bytes, as they stand. */
    bodyOf(answer: PostAnswer): Buffer {
      return Buffer.concat([answer.head, answer.comments.json, CLOSE]);
    },

    /**
     * The answer gzipped, its comments compressed once for as long as they are kept (at level 1
     * when large, as a large answer is at brotli's quality 1): a like on a post with thousands of
     * comments compresses its post's few KB, not the comments' MB.
     */
    gzipOf(answer: PostAnswer): Buffer {
      const { comments } = answer;
      const level =
        comments.json.length > LARGE_BODY_BYTES ? 1 : zlib.constants.Z_DEFAULT_COMPRESSION;
      if (!comments.piece) {
        comments.piece = deflatedPiece(comments.json, level);
        // Counted in the budget if these comments are still the ones kept.
        kept.grow(comments.postId, comments, comments.piece.deflated.length);
      }
      return gzipOfPieces([deflatedPiece(answer.head), comments.piece, CLOSE_PIECE]);
    },
  };
}

export type PostAnswers = ReturnType<typeof postAnswers>;
