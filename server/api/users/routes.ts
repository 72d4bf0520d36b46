import type { FastifyInstance } from "fastify";
import { integrationMessages } from "../../../contract/integrations.js";
import { PROFILE_PHOTO_MAX_BYTES } from "../../../contract/limits.js";
import { forbidden } from "../../../core/shared/errors.js";
import type { CoreDeps } from "../../../core/deps.js";
import { listOwnPosts } from "../../../core/posts/posts-service.js";
import {
  countUsers,
  deleteUser,
  getProfile,
  listUserPosts,
  listUsers,
  setProfilePhoto,
  updateProfile,
} from "../../../core/users/users-service.js";
import { setSuspended } from "../../../core/users/suspension.js";
import { optionalSignedIn, requireSignedIn } from "../../plugins/auth.js";
import { clientLeft, readImageForm } from "../../plugins/uploads.js";
import { readPageQuery } from "../query.js";
import { limits } from "../rate-limits.js";
import { userDocs as docs } from "./docs.js";
import { documented } from "../openapi/route-docs.js";

type IdParams = { Params: { id: string } };

export function userRoutes(app: FastifyInstance, deps: CoreDeps) {
  app.get("/api/users/count", documented(docs.count), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return countUsers(deps, actor);
  });

  app.get("/api/users/profile", documented(docs.list), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listUsers(deps, actor);
  });

  app.get<IdParams>("/api/users/profile/:id", documented(docs.profile), async (request) => {
    const signed = await optionalSignedIn(deps, request);
    return getProfile(deps, signed?.actor, request.params.id);
  });

  app.get("/api/users/me/posts", documented(docs.ownPosts), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return listOwnPosts(deps, actor, request.query);
  });

  app.get<IdParams>("/api/users/user/:id", documented(docs.posts), (request) => {
    const { pageNumber } = readPageQuery(request.query);
    return listUserPosts(deps, request.params.id, pageNumber ?? 1);
  });

  app.put<IdParams>(
    "/api/users/profile/:id",
    documented(docs.update, limits.profile),
    async (request) => {
      const { actor, session } = await requireSignedIn(deps, request);
      return updateProfile(deps, actor, session, request.params.id, request.body);
    },
  );

  app.post(
    "/api/users/profile/profile-photo",
    documented(docs.photo, limits.upload),
    async (request, reply) => {
      const { actor } = await requireSignedIn(deps, request);
      const signal = clientLeft(reply);
      const { image } = await readImageForm(request, PROFILE_PHOTO_MAX_BYTES);
      return setProfilePhoto(deps, actor, image, signal);
    },
  );

  app.put<IdParams>("/api/users/suspend/:id", documented(docs.suspend), async (request) => {
    const { actor } = await requireSignedIn(deps, request);
    return setSuspended(deps, actor, request.params.id, request.body);
  });

  app.delete<IdParams>("/api/users/profile/:id", documented(docs.remove), async (request) => {
    const signed = await requireSignedIn(deps, request);
    // Deleting one's own account is an account change: not with an API token (an admin's token
    // may still remove another account).
    if (signed.token && request.params.id === signed.actor.id) {
      throw forbidden(integrationMessages.notWithToken);
    }
    return deleteUser(deps, signed.actor, request.params.id);
  });
}
