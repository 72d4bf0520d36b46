import type { AppLoadContext } from "react-router";
import { attempt, formFields } from "../forms/action.server.js";

/**
 * A draft saving itself (a post's or a page's: resource routes, JSON only): the signed-in
 * viewer's save within the autosave rate, answered with the draft's new `updatedAt`, or why it
 * was not saved (the text stays in the browser either way).
 */
export async function autosaveAnswer(
  request: Request,
  context: AppLoadContext,
  save: (
    actor: NonNullable<AppLoadContext["viewer"]>["actor"],
    fields: Record<string, string>,
  ) => Promise<{ updatedAt: string }>,
) {
  const viewer = context.viewer;
  if (!viewer) {
    return Response.json({ message: "Please log in to save this draft" }, { status: 401 });
  }
  const tooMany = await context.limit("autosave");
  if (tooMany) return Response.json({ message: tooMany }, { status: 429 });
  const fields = await formFields(request);
  const result = await attempt(() => save(viewer.actor, fields));
  return result.ok
    ? Response.json(
        { updatedAt: result.value.updatedAt },
        { headers: { "cache-control": "no-store" } },
      )
    : Response.json({ message: result.message, errors: result.errors }, { status: result.status });
}
