import { data, Form } from "react-router";
import { PAGE_SIZE, SEARCH_MATCHES_MAX, SEARCH_MAX } from "../../contract/limits.js";
import { searchPosts, type SearchResults } from "../../core/search/search-service.js";
import { DomainError } from "../../core/shared/errors.js";
import { pageFrom, Pager } from "../features/posts/pager.js";
import { cardsOf, PostCard, type NotOnCards } from "../features/posts/post-card.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/search";
import { searchPath } from "../../contract/page-paths.js";

/** A search's results as the page is given them: its cards without counts (`cardsOf`). */
interface FoundPosts {
  total: number;
  posts: Omit<SearchResults["posts"][number], NotOnCards>[];
}

type Outcome =
  { kind: "ask" } | { kind: "refused"; message: string } | { kind: "found"; results: FoundPosts };

export async function loader({ context, request }: Route.LoaderArgs) {
  const q = new URL(request.url).searchParams.get("q");
  const page = pageFrom(request.url);
  const answer = (outcome: Outcome) => ({ q: q ?? "", page, outcome, site: context.site });
  // The bare page asks for search text; a blank search is told what is missing.
  if (q === null) return answer({ kind: "ask" });
  const refused = await context.limit("search");
  // One visitor's allowance spent: never kept as the page everyone gets for this search.
  if (refused !== undefined) {
    return data(answer({ kind: "refused", message: refused }), { headers: NOT_KEPT });
  }
  try {
    const results = await searchPosts(context.deps, { q, pageNumber: String(page) });
    return answer({ kind: "found", results: { ...results, posts: cardsOf(results.posts) } });
  } catch (error) {
    if (error instanceof DomainError && error.kind === "invalid") {
      return answer({ kind: "refused", message: error.message });
    }
    throw error;
  }
}

const NOT_KEPT = { "Cache-Control": "private, no-store" };

/** The loader's Cache-Control (a refused search), with the root's headers (a cleared flash). */
export const headers: Route.HeadersFunction = ({ loaderHeaders, parentHeaders }) => {
  const merged = new Headers(parentHeaders);
  loaderHeaders.forEach((value, name) => {
    merged.set(name, value);
  });
  return merged;
};

export const meta = ({ loaderData: data }: Route.MetaArgs) => [
  ...pageMeta(data.site, {
    title: data.q.trim() ? `Search: ${data.q.trim()}` : "Search",
    description: `Search the posts of ${data.site.title}.`,
    path: "/search",
  }),
  // A page per query: nothing for search engines to keep.
  { name: "robots", content: "noindex" },
];

function totalText(total: number) {
  if (total >= SEARCH_MATCHES_MAX) return `${String(SEARCH_MATCHES_MAX)}+ posts found`;
  return total === 1 ? "1 post found" : `${String(total)} posts found`;
}

export default function Search({ loaderData }: Route.ComponentProps) {
  const { q, page, outcome } = loaderData;
  const shown = q.trim();
  return (
    <>
      <h1 className="page-title">{shown ? `Search: ${shown}` : "Search"}</h1>
      <Form method="get" action="/search" className="search-page-form" role="search">
        <label htmlFor="search-page-q" className="visually-hidden">
          Search text
        </label>
        <input
          id="search-page-q"
          type="search"
          name="q"
          defaultValue={q}
          maxLength={SEARCH_MAX}
          placeholder="Search posts"
          aria-describedby="search-page-hint"
          key={q}
        />
        <button type="submit" className="button">
          Search
        </button>
      </Form>
      {/* How to search, said before anyone has typed (not as a refusal), and kept in view. */}
      <p id="search-page-hint" className="muted">
        Type a word or two. Put “an exact phrase” in quotes, and a minus before a word to leave it
        out (-word).
      </p>
      {outcome.kind === "refused" ? (
        <p className="form-error" role="alert">
          {outcome.message}
        </p>
      ) : null}
      {outcome.kind === "found" ? <Found q={shown} page={page} results={outcome.results} /> : null}
    </>
  );
}

function Found({ q, page, results }: { q: string; page: number; results: FoundPosts }) {
  const pages = Math.ceil(Math.min(results.total, SEARCH_MATCHES_MAX) / PAGE_SIZE);
  if (results.total === 0) {
    return (
      <div className="empty" role="status">
        <h2>No posts match “{q}”</h2>
        <p>Try fewer words, another spelling, or the beginning of a word.</p>
      </div>
    );
  }
  return (
    <>
      <p className="search-total" role="status">
        {totalText(results.total)}
        {page > 1 ? `, page ${String(page)}` : ""}
      </p>
      {results.posts.length === 0 ? (
        <p>This page is past the last of them.</p>
      ) : (
        <div className="post-grid">
          {results.posts.map((post, index) => (
            <PostCard
              key={post._id}
              post={post}
              eager={index < 2}
              description={post.snippet.map((segment, at) =>
                segment.match ? <mark key={at}>{segment.text}</mark> : segment.text,
              )}
            />
          ))}
        </div>
      )}
      <Pager page={page} pages={pages} path={searchPath(q)} />
    </>
  );
}
