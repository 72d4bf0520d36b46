import { sql, type Kysely, type Selectable } from "kysely";
import {
  SeriesCreateSchema,
  seriesMessages,
  SERIES_POSTS_MAX,
  SeriesUpdateSchema,
} from "../../contract/series.js";
import type { Database, SeriesTable } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import type { CoreDeps } from "../deps.js";
import { presentPostSummary } from "../posts/presenters.js";
import { selectPostSummaries } from "../posts/queries.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { forbidden, invalid, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import type { Actor } from "../users/policies.js";
import { presentPublicUser } from "../users/presenters.js";

// Series (DESIGN.md 11, "Pages and series"; decision 032): a writer's own posts in the order they
// choose. Posts name their series (`posts.series_id`, `posts.series_position`); readers see the
// published ones, numbered among themselves, and the writer sees their drafts there too.

type SeriesRow = Selectable<SeriesTable>;

const m = seriesMessages;

/** Whether `viewer` sees the series' drafts and scheduled posts: its writer alone. */
const seesUnpublished = (viewer: Actor | undefined, series: Pick<SeriesRow, "user_id">) =>
  viewer?.id === series.user_id;

const seriesWithAuthor = (db: Kysely<Database>) =>
  db
    .selectFrom("series")
    .innerJoin("users", "users.id", "series.user_id")
    .selectAll("series")
    .select(["users.username", "users.photo_key"]);

/** A series with its writer's name, or undefined (an id of another shape included). */
export async function findSeries(deps: Pick<CoreDeps, "db">, id: string) {
  if (!isId(id)) return undefined;
  return seriesWithAuthor(deps.db).where("series.id", "=", id).executeTakeFirst();
}

async function requireSeries(deps: Pick<CoreDeps, "db">, id: string) {
  const series = await findSeries(deps, id);
  if (!series) throw notFound(m.notFound);
  return series;
}

/** The posts of a series in its order: the published ones, and the rest too for its writer. */
export async function postsOfSeries(
  deps: CoreDeps,
  viewer: Actor | undefined,
  series: Pick<SeriesRow, "id" | "user_id">,
) {
  const rows = await selectPostSummaries(deps.db)
    .where("posts.series_id", "=", series.id)
    .$if(!seesUnpublished(viewer, series), (query) => query.where("posts.status", "=", "published"))
    .orderBy("posts.series_position")
    .orderBy("posts.id")
    .execute();
  return rows.map((row) => presentPostSummary(deps, row));
}

/**
 * `GET /api/series/:id`: the series with its posts in order, each as lists show posts. Readers get
 * the published ones; its writer their drafts and scheduled posts as well (each says its status;
 * its `series.position` is where readers will see it).
 */
export async function getSeries(deps: CoreDeps, viewer: Actor | undefined, id: string) {
  const series = await requireSeries(deps, id);
  return {
    _id: series.id,
    title: series.title,
    description: series.description,
    author: presentPublicUser(deps, {
      id: series.user_id,
      username: series.username,
      photo_key: series.photo_key,
    }),
    posts: await postsOfSeries(deps, viewer, series),
    createdAt: series.created_at,
    updatedAt: series.updated_at,
  };
}

export type PresentedSeries = Awaited<ReturnType<typeof getSeries>>;

/** `POST /api/series`: a new, empty series of the signed-in writer's. */
export async function createSeries(deps: CoreDeps, actor: Actor, body: unknown) {
  const input = validate(SeriesCreateSchema, body);
  const now = iso(deps.clock());
  const id = newId();
  await deps.db
    .insertInto("series")
    .values({
      id,
      user_id: actor.id,
      title: input.title,
      description: input.description ?? "",
      created_at: now,
      updated_at: now,
    })
    .execute();
  return getSeries(deps, actor, id);
}

/**
 * Which of `ids` are not posts of `userId`'s, as field errors (`posts.2`): an unknown post and
 * someone else's read alike, so the answer tells nothing of other writers' drafts.
 */
async function postsNotOwned(deps: CoreDeps, userId: string, ids: readonly string[]) {
  const known = ids.filter(isId);
  const own =
    known.length === 0
      ? []
      : await deps.db
          .selectFrom("posts")
          .select("id")
          .where("id", "in", known)
          .where("user_id", "=", userId)
          .execute();
  const owned = new Set(own.map((row) => row.id));
  return Object.fromEntries(
    ids.flatMap((id, index) => (owned.has(id) ? [] : [[`posts.${String(index)}`, m.postNotOwn]])),
  );
}

/**
 * `PUT /api/series/:id`: its title, description, or its posts in their order (the whole list: a
 * post left out leaves the series, one in another of the writer's series moves here). Its writer
 * alone.
 */
export async function updateSeries(deps: CoreDeps, actor: Actor, id: string, body: unknown) {
  const series = await requireSeries(deps, id);
  if (actor.id !== series.user_id) throw forbidden(m.notOwner);
  const input = validate(SeriesUpdateSchema, body);
  const { posts } = input;
  if (posts !== undefined) {
    const refused = await postsNotOwned(deps, series.user_id, posts);
    const [first] = Object.values(refused);
    if (first !== undefined) throw invalid(first, refused);
  }
  await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("series")
        .set({
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.description === undefined ? {} : { description: input.description }),
          updated_at: iso(deps.clock()),
        })
        .where("id", "=", series.id)
        .execute();
      if (posts !== undefined) await placePosts(trx, series, posts, iso(deps.clock()));
    }),
  );
  return getSeries(deps, actor, series.id);
}

/** Puts `ids` in the series in that order, and takes out its posts not among them. */
async function placePosts(
  trx: Kysely<Database>,
  series: Pick<SeriesRow, "id" | "user_id">,
  ids: readonly string[],
  now: string,
) {
  // The writer's other series its posts move from changed too (their pages' dates say so).
  if (ids.length > 0) {
    await trx
      .updateTable("series")
      .set({ updated_at: now })
      .where("id", "in", (eb) =>
        eb
          .selectFrom("posts")
          .select("posts.series_id")
          .where("posts.id", "in", ids)
          .where("posts.series_id", "is not", null)
          .where("posts.series_id", "!=", series.id),
      )
      .execute();
  }
  let leaving = trx
    .updateTable("posts")
    .set({ series_id: null, series_position: null })
    .where("series_id", "=", series.id);
  if (ids.length > 0) leaving = leaving.where("id", "not in", ids);
  await leaving.execute();
  for (const [index, postId] of ids.entries()) {
    await trx
      .updateTable("posts")
      .set({ series_id: series.id, series_position: index + 1 })
      .where("id", "=", postId)
      // Checked before the transaction; a post given away meanwhile (an account merge) stays out.
      .where("user_id", "=", series.user_id)
      .execute();
  }
}

/** `DELETE /api/series/:id`: its posts stay, in no series. Its writer or an admin (logged). */
export async function deleteSeries(deps: CoreDeps, actor: Actor, id: string) {
  const series = await requireSeries(deps, id);
  const own = actor.id === series.user_id;
  if (!own && !actor.isAdmin) throw forbidden(m.deleteDenied);
  await changingContent(deps, () =>
    deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("posts")
        .set({ series_id: null, series_position: null })
        .where("series_id", "=", series.id)
        .execute();
      await trx.deleteFrom("series").where("id", "=", series.id).execute();
      if (!own) {
        await recordAudit(trx, deps, actor, "series.delete", {
          kind: "series",
          id: series.id,
          summary: series.title,
        });
      }
    }),
  );
  return { seriesId: series.id, message: m.deleted };
}

/** A writer's series, newest first, with how many posts each holds (drafts too): their own view. */
export async function listSeriesOf(deps: Pick<CoreDeps, "db">, userId: string) {
  const rows = await deps.db
    .selectFrom("series")
    .select(["series.id", "series.title", "series.description", "series.updated_at"])
    .select((eb) =>
      eb
        .selectFrom("posts")
        .select(eb.fn.countAll<number | string>().as("n"))
        .whereRef("posts.series_id", "=", "series.id")
        .as("posts_count"),
    )
    .where("series.user_id", "=", userId)
    .orderBy("series.created_at", "desc")
    .orderBy("series.id", "desc")
    .execute();
  return rows.map((row) => ({
    _id: row.id,
    title: row.title,
    description: row.description,
    postsCount: Number(row.posts_count ?? 0),
    updatedAt: row.updated_at,
  }));
}

/**
 * The columns that put a post in the series `seriesId` of its writer's (at its end), or in none
 * (`null` or ""): 400 naming `series` for a series that is not the writer's or is full. A post
 * already in that series keeps its place.
 */
export async function seriesColumnsFor(
  deps: Pick<CoreDeps, "db">,
  writerId: string,
  seriesId: string | null,
  current?: { series_id: string | null },
) {
  if (seriesId === null || seriesId === "") return { series_id: null, series_position: null };
  if (current?.series_id === seriesId) return {};
  const series = isId(seriesId)
    ? await deps.db
        .selectFrom("series")
        .select("id")
        .where("id", "=", seriesId)
        .where("user_id", "=", writerId)
        .executeTakeFirst()
    : undefined;
  if (!series) throw invalid(m.seriesUnknown, { series: m.seriesUnknown });
  // Full, it takes no more: the writer could no longer send its whole list to order it.
  const held = await deps.db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("series_id", "=", series.id)
    .executeTakeFirstOrThrow();
  if (Number(held.n) >= SERIES_POSTS_MAX) throw invalid(m.postsTooMany, { series: m.postsTooMany });
  return {
    series_id: series.id,
    // Last in it, counted in the write itself (two posts joining at once may share a number:
    // their order is then their ids', and the writer's next ordering numbers them apart).
    series_position: sql<number>`(select coalesce(max(series_position), 0) + 1 from posts where series_id = ${series.id})`,
  };
}

/**
 * The parts of a post's series as its page lists them (decision 032): id and title of the
 * series' published posts in its order, and the post itself where it is not out yet (its
 * writer's page shows where it will stand). One read through the series index; none for a post
 * in no series.
 */
export async function seriesPartsOf(
  deps: Pick<CoreDeps, "db">,
  post: { _id: string; series: { _id: string } | null },
) {
  if (post.series === null) return [];
  const rows = await deps.db
    .selectFrom("posts")
    .select(["id", "title"])
    .where("series_id", "=", post.series._id)
    .where((eb) => eb.or([eb("status", "=", "published"), eb("id", "=", post._id)]))
    .orderBy("series_position")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({ _id: row.id, title: row.title }));
}

/** The most posts a series' page offers to add: its writer's newest. */
export const SERIES_OFFERED_MAX = 200;

/**
 * What a series' writer may add to it (its page's "Add a post"): their posts in no series or in
 * another of theirs (added here, it moves), drafts too, newest first, with that other series'
 * title.
 */
export async function postsToAddTo(
  deps: Pick<CoreDeps, "db">,
  series: { _id: string; author: { _id: string } },
) {
  const rows = await deps.db
    .selectFrom("posts")
    .leftJoin("series", "series.id", "posts.series_id")
    .select(["posts.id", "posts.title", "posts.status", "series.title as series_title"])
    .where("posts.user_id", "=", series.author._id)
    .where((eb) =>
      eb.or([eb("posts.series_id", "is", null), eb("posts.series_id", "!=", series._id)]),
    )
    .orderBy("posts.created_at", "desc")
    .orderBy("posts.id", "desc")
    .limit(SERIES_OFFERED_MAX)
    .execute();
  return rows.map((row) => ({
    _id: row.id,
    title: row.title,
    status: row.status,
    /** The series it leaves if added here; null: none. */
    inSeries: row.series_title,
  }));
}

/** The series readers can read (one published post or more), for the sitemap. */
export async function listPublishedSeriesStamps(deps: Pick<CoreDeps, "db">) {
  const rows = await deps.db
    .selectFrom("series")
    .select(["series.id", "series.updated_at"])
    .select((eb) =>
      eb
        .selectFrom("posts")
        .select((inner) => inner.fn.max("posts.updated_at").as("at"))
        .whereRef("posts.series_id", "=", "series.id")
        .where("posts.status", "=", "published")
        .as("post_updated_at"),
    )
    .orderBy("series.id")
    .execute();
  return rows.flatMap((row) =>
    row.post_updated_at === null
      ? []
      : [
          {
            id: row.id,
            // Its page changes with its own edits and with its posts'.
            updatedAt: row.post_updated_at > row.updated_at ? row.post_updated_at : row.updated_at,
          },
        ],
  );
}
