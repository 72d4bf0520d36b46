import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import type { CoreDeps } from "../../../core/deps.js";

export function healthRoutes(app: FastifyInstance, deps: CoreDeps) {
  // Liveness: the process answers (no database). /healthz is readiness: the database answers too.
  app.get("/livez", () => ({ status: "ok" }));

  app.get("/healthz", async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      return { status: "ok" };
    } catch (error) {
      request.log.error({ err: error }, "health check: database unreachable");
      return reply.status(503).send({ status: "unavailable" });
    }
  });
}
