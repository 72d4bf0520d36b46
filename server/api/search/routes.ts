import type { FastifyInstance } from "fastify";
import type { CoreDeps } from "../../../core/deps.js";
import { searchPosts } from "../../../core/search/search-service.js";
import { documented } from "../openapi/route-docs.js";
import { limits } from "../rate-limits.js";
import { searchDocs as docs } from "./docs.js";

export function searchRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/search", documented(docs.search, limits.search), (request) =>
    searchPosts(deps, request.query),
  );
}
