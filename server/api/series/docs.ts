import { SeriesCreateSchema, SeriesUpdateSchema } from "../../../contract/series.js";
import { SeriesDeletedSchema, SeriesSchema } from "../../../contract/responses.js";
import type { RouteDocs } from "../openapi/route-docs.js";

const seriesId = { id: "The series' id" };
const noSeries = "No series with that id";

/** The API reference's entries for server/api/series/routes.ts (DESIGN.md 11, "Pages and series"). */
export const seriesDocs = {
  get: {
    summary: "Read a series with its posts in order",
    description:
      "Readers get its published posts, numbered among themselves (each post's `series`); its " +
      "writer gets their drafts and scheduled posts there too, each with its status.",
    access: "anyone-or-signed-in",
    params: seriesId,
    response: { status: 200, description: "The series", schema: SeriesSchema },
    errors: { 404: noSeries },
  },
  create: {
    summary: "Start a series",
    description: "An empty series of the caller's; `PUT` puts posts in it, or a post names it.",
    access: "signed-in",
    body: SeriesCreateSchema,
    response: { status: 201, description: "The new series", schema: SeriesSchema },
  },
  update: {
    summary: "Change a series: its title, description, or posts in order",
    description:
      "Any of the fields; absent, kept. `posts` is the whole series in its order, the writer's " +
      "own posts only (a 400 names each other one as `posts.<n>`): a post left out leaves the " +
      "series, one in another of the writer's series moves here (a post is in one at most).",
    access: "signed-in",
    params: seriesId,
    body: SeriesUpdateSchema,
    response: { status: 200, description: "The series as saved", schema: SeriesSchema },
    errors: { 403: "Not the series' writer", 404: noSeries },
  },
  remove: {
    summary: "Delete a series",
    description: "Its posts stay, in no series. Its writer or an admin (logged).",
    access: "signed-in",
    params: seriesId,
    response: { status: 200, description: "Deleted", schema: SeriesDeletedSchema },
    errors: { 403: "Neither the series' writer nor an admin", 404: noSeries },
  },
} satisfies Record<string, RouteDocs>;
