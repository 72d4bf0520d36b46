import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  BODY_IMAGE_MAX_BYTES,
  IMAGE_CREATE_MAX_BYTES,
  IMAGE_REPLACE_MAX_BYTES,
} from "../../../contract/limits.js";
import type { CoreDeps } from "../../../core/deps.js";
import { uploadBodyImage } from "../../../core/posts/body-images.js";
import { namingField } from "../../../core/shared/errors.js";
import {
  countPosts,
  createPost,
  deletePost,
  listPosts,
  listPostsInBatches,
  listTags,
  replacePostImage,
  toggleLike,
  updatePost,
} from "../../../core/posts/posts-service.js";
import { getRevision, listRevisions, restoreRevision } from "../../../core/posts/revisions.js";
import { optionalSignedIn, requireSignedIn } from "../../plugins/auth.js";
import { clientLeft, jsonFields, readImageForm } from "../../plugins/uploads.js";
import { acceptsGzip, varyOnEncoding } from "../../plugins/compression.js";
import { workSlots } from "../../../core/shared/work-slots.js";
import { holdSlotForAnswer } from "../../waiting.js";
import { jsonArrayStream } from "../json-stream.js";
import { readPageQuery } from "../query.js";
import { limits } from "../rate-limits.js";
import { answerPrivately } from "../shared-answers.js";
import type { Actor } from "../../../core/users/policies.js";
import type { PostAnswers } from "./post-answers.js";
import { postDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

type IdParams = { Params: { id: string } };

/**
 * From this many bytes of comments a like's answer is sent gzipped from their kept compressed
 * piece (decision 029); below it, compressed whole as any answer (brotli, on the thread).
 */
const GZIP_PIECES_MIN_BYTES = 16 * 1024;

export function postRoutes(
  app: FastifyInstance,
  deps: CoreDeps,
  options: { slotMs: number; answers: PostAnswers },
) {
  const { answers } = options;
  /**
   * A post's JSON as `GET /api/posts/:id` answers it, from kept pieces (decision 029); with many
   * comments, gzipped from their kept compressed piece when the client takes gzip.
   */
  const sendPost = async (
    request: FastifyRequest,
    reply: FastifyReply,
    actor: Actor | undefined,
    id: string,
  ) => {
    const answer = await answers.answer(actor, id);
    void reply.type("application/json; charset=utf-8");
    if (
      answer.comments.json.length >= GZIP_PIECES_MIN_BYTES &&
      request.headers["x-no-compression"] === undefined &&
      acceptsGzip(request.headers["accept-encoding"])
    ) {
      varyOnEncoding(reply);
      return reply.header("content-encoding", "gzip").send(answers.gzipOf(answer));
    }
    return reply.send(answers.bodyOf(answer));
  };
  // Whole lists are the heaviest answers there are (10 MB for 10,000 posts, compressed on the way):
  // one at a time, the rest wait their turn, so a crowd asking for them cannot exhaust the memory
  // (several at once finish no sooner: the work is JSON and compression, on the CPU).
  const wholeLists = workSlots(1);

  app.get("/api/posts", documented(docs.list), async (request, reply) => {
    const { pageNumber, category, tag } = readPageQuery(request.query);
    if (pageNumber !== undefined) return listPosts(deps, { category, tag }, pageNumber);
    // Every post (the admin table's call): sent as it is read, a batch at a time, so the answer
    // holds one batch in memory however many posts the site has.
    if (!(await holdSlotForAnswer(request, reply, wholeLists, options.slotMs))) {
      return reply.hijack();
    }
    const list = await jsonArrayStream(listPostsInBatches(deps, { category, tag }));
    return reply.type("application/json; charset=utf-8").send(list);
  });

  app.get("/api/posts/count", documented(docs.count), () => countPosts(deps));

  type RevisionParams = { Params: { id: string; revisionId: string } };
  app.get<IdParams>("/api/posts/:id/revisions", documented(docs.revisions), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listRevisions(deps, actor, request.params.id, request.query);
  });

  app.get<RevisionParams>(
    "/api/posts/:id/revisions/:revisionId",
    documented(docs.revision),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return getRevision(deps, actor, request.params.id, request.params.revisionId);
    },
  );

  app.post<RevisionParams>(
    "/api/posts/:id/revisions/:revisionId/restore",
    documented(docs.restoreRevision),
    async (request) => {
      const { actor } = await requireSignedIn(deps, request);
      return restoreRevision(deps, actor, request.params.id, request.params.revisionId);
    },
  );

  app.get("/api/tags", documented(docs.tags), (request) => {
    const { pageNumber } = readPageQuery(request.query);
    return listTags(deps, pageNumber);
  });

  app.get<IdParams>("/api/posts/:id", documented(docs.get), async (request, reply) => {
    const signed = await optionalSignedIn(deps, request);
    const answer = await answers.answer(signed?.actor, request.params.id);
    // A draft or a scheduled post is its author's answer alone: never kept for others.
    if (answer.status !== "published") answerPrivately(request);
    return reply.type("application/json; charset=utf-8").send(answers.bodyOf(answer));
  });

  app.post("/api/posts", documented(docs.create, limits.upload), async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    const signal = clientLeft(reply);
    // Multipart, with the cover; or JSON, without one (a draft, or a post whose cover is refused).
    const form = request.isMultipart()
      ? await readImageForm(request, IMAGE_CREATE_MAX_BYTES)
      : { fields: jsonFields(request.body), image: undefined };
    return reply.status(201).send(await createPost(deps, actor, form, signal));
  });

  // An image for a post body: `{url, width, height}` to write into the Markdown.
  app.post(
    "/api/posts/images",
    documented(docs.bodyImage, limits.bodyImage),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      const signal = clientLeft(reply);
      const { image } = await readImageForm(request, BODY_IMAGE_MAX_BYTES).catch(
        namingField("image"),
      );
      const uploaded = await uploadBodyImage(deps, actor, image, signal).catch(
        namingField("image"),
      );
      return reply.status(201).send(uploaded);
    },
  );

  app.put<IdParams>("/api/posts/:id", documented(docs.update, limits.postEdit), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return updatePost(deps, actor, request.params.id, request.body);
  });

  app.put<IdParams>(
    "/api/posts/post-image/:id",
    documented(docs.replaceImage, limits.upload),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      const signal = clientLeft(reply);
      const { image } = await readImageForm(request, IMAGE_REPLACE_MAX_BYTES);
      return replacePostImage(deps, actor, request.params.id, image, signal);
    },
  );

  app.put<IdParams>(
    "/api/posts/like/:id",
    documented(docs.like, limits.like),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      await toggleLike(deps, actor, request.params.id);
      return sendPost(request, reply, actor, request.params.id);
    },
  );

  app.delete<IdParams>("/api/posts/:id", documented(docs.remove), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return deletePost(deps, actor, request.params.id);
  });
}
