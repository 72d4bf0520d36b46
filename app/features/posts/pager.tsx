import { Link } from "react-router";
import { ChevronLeftIcon, ChevronRightIcon } from "../../ui/icons.js";
import { GAP, pageWindow } from "./page-window.js";

/**
 * Previous, numbered pages, next (SPEC.md 2), shown only with more than one page. Pages are
 * links (`?page=n`), so every page can be shared, reloaded and read without JavaScript.
 */
export function Pager({
  page,
  pages,
  path,
  param = "page",
  label = "Pages",
  defaultPage = 1,
  hash = "",
}: {
  page: number;
  pages: number;
  path: string;
  /** The query parameter that names the page. */
  param?: string;
  label?: string;
  /** The page the bare path shows. */
  defaultPage?: number;
  /** Where on the page a link lands, e.g. `#comments`. */
  hash?: string;
}) {
  if (pages <= 1) return null;
  const href = (n: number) =>
    `${n === defaultPage ? path : `${path}${path.includes("?") ? "&" : "?"}${param}=${String(n)}`}${hash}`;
  return (
    <nav className="pager" aria-label={label}>
      {page > 1 ? (
        <Link to={href(page - 1)} className="pager-item" aria-label="Previous page">
          <ChevronLeftIcon />
        </Link>
      ) : (
        <span className="pager-item" role="link" aria-disabled="true" aria-label="Previous page">
          <ChevronLeftIcon />
        </span>
      )}
      {pageWindow(page, pages).map((n, index) =>
        n === GAP ? (
          <span key={`gap-${String(index)}`} className="pager-gap" aria-hidden="true">
            …
          </span>
        ) : (
          <Link
            key={n}
            to={href(n)}
            className="pager-item"
            aria-current={n === page ? "page" : undefined}
            aria-label={`Page ${String(n)}`}
          >
            {n}
          </Link>
        ),
      )}
      {page < pages ? (
        <Link to={href(page + 1)} className="pager-item" aria-label="Next page">
          <ChevronRightIcon />
        </Link>
      ) : (
        <span className="pager-item" role="link" aria-disabled="true" aria-label="Next page">
          <ChevronRightIcon />
        </span>
      )}
    </nav>
  );
}

/** `?page=n` from a URL: a whole number from 1, anything else is page 1. */
export function pageFrom(url: string) {
  return pageParam(url, "page") ?? 1;
}

/** A page number from a query parameter, or undefined when it is missing or not a page number. */
export function pageParam(url: string, name: string) {
  const raw = new URL(url).searchParams.get(name);
  return raw !== null && /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : undefined;
}
