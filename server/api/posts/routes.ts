import type { FastifyInstance } from "fastify";
import { IMAGE_CREATE_MAX_BYTES, IMAGE_REPLACE_MAX_BYTES } from "../../../contract/limits.js";
import type { CoreDeps } from "../../../core/deps.js";
import {
  countPosts,
  createPost,
  deletePost,
  getPost,
  listPosts,
  replacePostImage,
  toggleLike,
  updatePost,
} from "../../../core/posts/posts-service.js";
import { requireSignedIn } from "../../plugins/auth.js";
import { readImageForm } from "../../plugins/uploads.js";
import { readPageQuery } from "../query.js";
import { limits } from "../rate-limits.js";

type IdParams = { Params: { id: string } };

export function postRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/posts", (request) => {
    const { pageNumber, category } = readPageQuery(request.query);
    return listPosts(deps, { category }, pageNumber);
  });

  app.get("/api/posts/count", () => countPosts(deps));

  app.get<IdParams>("/api/posts/:id", (request) => getPost(deps, request.params.id));

  app.post("/api/posts", { config: limits.upload }, async (request, reply) => {
    const { actor } = await requireSignedIn(deps, request);
    const form = await readImageForm(request, IMAGE_CREATE_MAX_BYTES);
    return reply.status(201).send(await createPost(deps, actor, form));
  });

  app.put<IdParams>("/api/posts/:id", async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return updatePost(deps, actor, request.params.id, request.body);
  });

  app.put<IdParams>("/api/posts/post-image/:id", { config: limits.upload }, async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    const { image } = await readImageForm(request, IMAGE_REPLACE_MAX_BYTES);
    return replacePostImage(deps, actor, request.params.id, image);
  });

  app.put<IdParams>("/api/posts/like/:id", { config: limits.like }, async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return toggleLike(deps, actor, request.params.id);
  });

  app.delete<IdParams>("/api/posts/:id", async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return deletePost(deps, actor, request.params.id);
  });
}
