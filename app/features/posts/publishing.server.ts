import { zonedTimeToIso } from "../../../contract/publish-time.js";
import { profilePath } from "../../../contract/page-paths.js";

/**
 * A post form's publishing fields as the API reads them: the schedule picked on the writer's wall
 * clock (`datetime-local`) becomes an ISO time in the time zone the form sent with it (UTC when
 * the page's script did not run). A value that is no time is passed on for the API to refuse.
 */
export function publishingFields(fields: Record<string, string>): Record<string, string> {
  const { timeZone, publishAt, ...rest } = fields;
  if (publishAt === undefined || publishAt.trim() === "") return rest;
  return { ...rest, publishAt: zonedTimeToIso(publishAt, timeZone ?? "UTC") ?? publishAt };
}

/** Where a writer goes once a post is saved: home when it is out, else their list of such posts. */
export function afterSaving(status: string | undefined, authorId: string) {
  switch (status) {
    case "draft":
      return { message: "Draft saved", to: profilePath(authorId, "drafts") };
    case "scheduled":
      return { message: "Post scheduled", to: profilePath(authorId, "scheduled") };
    default:
      return { message: "Post created successfully", to: "/" };
  }
}
