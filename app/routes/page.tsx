import { useRef } from "react";
import { data, Link, redirect } from "react-router";
import { pageEditorPath, pagePath } from "../../contract/page-paths.js";
import { findPageBySlug } from "../../core/pages/pages-service.js";
import { DomainError } from "../../core/shared/errors.js";
import { useCodeCopyButtons } from "../features/posts/code-copy.js";
import postBodyStyles from "../features/posts/post-body.css?url";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/page";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: postBodyStyles }];

/**
 * A static page (DESIGN.md 11, "Pages and series"; decision 032): the same for every reader; a
 * draft only for admins (404 for anyone else); a slug it had before a rename redirects here.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const actor = context.viewer?.actor;
  try {
    const { page, movedTo } = await findPageBySlug(context.deps, actor, params.slug);
    // Permanent for search engines, but checked again by browsers and caches each time: the old
    // slug may be taken back, or by another page, later.
    if (movedTo !== undefined) {
      throw redirect(pagePath(movedTo), { status: 301, headers: { "cache-control": "no-cache" } });
    }
    return { site: context.site, page, isAdmin: actor?.isAdmin === true };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") {
      throw data(null, { status: 404 });
    }
    throw error;
  }
}

export const meta = ({ loaderData }: Route.MetaArgs) => {
  const { page, site } = loaderData;
  const description = page.metaDescription ?? page.excerpt;
  const path = pagePath(page.slug);
  return [
    ...pageMeta(site, { title: page.title, description, path }),
    ...(page.status === "draft" ? [{ name: "robots", content: "noindex" }] : []),
    { property: "og:type", content: "website" },
    { property: "og:title", content: page.title },
    { property: "og:description", content: description },
    { property: "og:url", content: `${site.publicUrl}${path}` },
    { property: "og:site_name", content: site.title },
    { name: "twitter:card", content: "summary" },
    { name: "twitter:title", content: page.title },
    { name: "twitter:description", content: description },
  ];
};

export default function Page({ loaderData }: Route.ComponentProps) {
  const { page, isAdmin } = loaderData;
  const bodyRef = useRef<HTMLDivElement>(null);
  useCodeCopyButtons(bodyRef, page.html);
  return (
    <article className="post static-page">
      <header className="post-header">
        <h1>{page.title}</h1>
        {page.status === "draft" ? (
          <p className="notice" role="note">
            A draft: only admins see this page until it is published.
          </p>
        ) : null}
        {isAdmin ? (
          <p>
            <Link to={pageEditorPath(page._id)} className="button button-small button-ghost">
              Edit page
            </Link>
          </p>
        ) : null}
      </header>
      <div
        ref={bodyRef}
        className="post-body"
        // The body as the server rendered and sanitized it when it was written (core/posts/body.ts,
        // the posts' renderer and allow-list), as on a post's page. Nothing else goes here.
        dangerouslySetInnerHTML={{ __html: page.html }}
      />
    </article>
  );
}
