import { uploadBodyImage } from "../../core/posts/body-images.js";
import { attempt, imageForm } from "../features/forms/action.server.js";
import type { Route } from "./+types/post-images";

/**
 * The editor's image uploads (a resource route, JSON only): `POST /api/posts/images` for the site,
 * whose pages hold their session in an httpOnly cookie the API does not read (it takes bearer
 * tokens). The same service, the same checks and answers: 201 `{url, width, height}`, errors as
 * `{message}`; the same allowance per address as the API route.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const viewer = context.viewer;
  if (!viewer) {
    return Response.json({ message: "Please log in to upload images" }, { status: 401 });
  }
  const tooMany = await context.limit("bodyImage");
  if (tooMany) return Response.json({ message: tooMany }, { status: 429 });
  const result = await attempt(async () => {
    const { image } = await imageForm(request);
    return context.outsideSlot(() =>
      uploadBodyImage(context.deps, viewer.actor, image, request.signal),
    );
  });
  return result.ok
    ? Response.json(result.value, { status: 201 })
    : Response.json({ message: result.message }, { status: result.status });
}

/** Asked for as a page: there is nothing to see here. */
export function loader() {
  return new Response(null, { status: 405, headers: { allow: "POST" } });
}
