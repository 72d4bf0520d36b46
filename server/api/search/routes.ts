import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import { searchPosts } from "../../../core/search/search-service.js";
import { limits } from "../rate-limits.js";

export function searchRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/search", { config: limits.search }, (request) => searchPosts(deps, request.query));
}
