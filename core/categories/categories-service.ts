import { CategoryCreateSchema } from "../../contract/content.js";
import { compiledOnce } from "../../db/compiled-once.js";
import type { CategoriesTable, Database } from "../../db/schema.js";
import { recordAudit } from "../audit/audit-log.js";
import type { CoreDeps } from "../deps.js";
import { iso } from "../shared/clock.js";
import { changingContent } from "../shared/content-changes.js";
import { conflict, notFound } from "../shared/errors.js";
import { isId, newId } from "../shared/ids.js";
import { validate } from "../shared/validate.js";
import { assertAdmin, type Actor } from "../users/policies.js";

export const categoryMessages = {
  exists: "Category already exists",
  notFound: "Category not found",
  deleted: "Category has been deleted successfully",
} as const;

const titleKeyOf = (title: string) => title.trim().toLowerCase();

export const presentCategory = (row: CategoriesTable) => ({
  _id: row.id,
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
});

/** Every page's header lists them. */
const allCategories = compiledOnce<Database>();
const categoryByTitle = compiledOnce<Database>();

export async function listCategories(deps: Pick<CoreDeps, "db">) {
  const rows = await allCategories(deps.db, { parameters: [] }, () =>
    deps.db.selectFrom("categories").selectAll().orderBy("title_key"),
  );
  return rows.map(presentCategory);
}

/** The category a post may be filed under, found regardless of case. */
export async function findCategoryByTitle(deps: Pick<CoreDeps, "db">, title: string) {
  const titleKey = titleKeyOf(title);
  const [row] = await categoryByTitle(deps.db, { parameters: [titleKey] }, () =>
    deps.db.selectFrom("categories").selectAll().where("title_key", "=", titleKey),
  );
  return row;
}

export async function createCategory(deps: CoreDeps, actor: Actor, body: unknown) {
  assertAdmin(actor);
  const { title } = validate(CategoryCreateSchema, body);
  const row: CategoriesTable = {
    id: newId(),
    title,
    title_key: titleKeyOf(title),
    created_at: iso(deps.clock()),
  };
  if (await findCategoryByTitle(deps, title)) throw conflict(categoryMessages.exists);
  try {
    await changingContent(deps, () =>
      deps.db.transaction().execute(async (trx) => {
        await trx.insertInto("categories").values(row).execute();
        await recordAudit(trx, deps, actor, "category.create", {
          kind: "category",
          id: row.id,
          summary: row.title,
        });
      }),
    );
  } catch (error) {
    if (await findCategoryByTitle(deps, title)) throw conflict(categoryMessages.exists);
    throw error;
  }
  return presentCategory(row);
}

/** Deletes a category; its posts stay and keep the title (DESIGN.md 4). */
export async function deleteCategory(deps: CoreDeps, actor: Actor, id: string) {
  assertAdmin(actor);
  const deleted = isId(id)
    ? await changingContent(deps, () =>
        deps.db.transaction().execute(async (trx) => {
          const category = await trx
            .deleteFrom("categories")
            .where("id", "=", id)
            .returning(["id", "title"])
            .executeTakeFirst();
          if (category) {
            await recordAudit(trx, deps, actor, "category.delete", {
              kind: "category",
              id: category.id,
              summary: category.title,
            });
          }
          return category;
        }),
      )
    : undefined;
  if (!deleted) throw notFound(categoryMessages.notFound);
  return { categoryId: id, message: categoryMessages.deleted };
}
