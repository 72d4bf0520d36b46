import { rowWindow } from "../../../core/shared/row-window.js";
import { pageFrom } from "../posts/pager.js";

/** Rows per page of a dashboard table: a page a phone can scroll, not 400 rows at once. */
export const ADMIN_ROWS_PER_PAGE = 50;

/** The page of a dashboard table that `?page=n` asks for, and its rows. */
export function tablePage(request: Request) {
  const page = pageFrom(request.url);
  return { page, rows: rowWindow(page, ADMIN_ROWS_PER_PAGE) };
}

/** What the table shows under itself: which page of how many, and where its pages live. */
export const pagingOf = (
  page: number,
  total: number,
  path: string,
  pageSize = ADMIN_ROWS_PER_PAGE,
) => ({
  page,
  pages: Math.ceil(total / pageSize),
  path,
  first: (page - 1) * pageSize + 1,
});

export type TablePaging = ReturnType<typeof pagingOf>;
