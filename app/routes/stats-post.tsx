import { data, Link } from "react-router";
import { DomainError } from "../../core/shared/errors.js";
import { postWithStats } from "../../core/stats/stats-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import {
  CsvDownload,
  ReferrerRanking,
  StatsPanels,
  StatsSection,
  StatsTotals,
} from "../features/stats/stats-parts.js";
import { statsRangeOf } from "../features/stats/stats-range.server.js";
import statsStyles from "../features/stats/stats.css?url";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/stats-post";
import { postPath, postStatsPath } from "../../contract/page-paths.js";
import { mailingOf } from "../../core/newsletter/sending.js";
import type { PostNewsletterResponse } from "../../contract/newsletter.js";
import { LocalTime } from "../features/posts/publish-controls.js";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: statsStyles }];

/**
 * One post's stats, for its author and admins; anyone else gets the site's 404, as the API answers
 * them: the same page as for a post that is not there.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, postStatsPath(params.id));
  const days = statsRangeOf(request);
  // Another range: refused before anything of the post is read (whose it is included).
  if (days === undefined) {
    return data(
      { site: context.site, days, stats: null, post: null, mailing: null },
      { status: 400 },
    );
  }
  try {
    // postWithStats refuses anyone but the post's author and admins.
    const { post, stats } = await postWithStats(context.deps, viewer.actor, params.id, days);
    // Its writer's or an admin's: postWithStats has checked.
    const mailing = await mailingOf(context.deps, post._id);
    return { site: context.site, days, stats, post, mailing };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") {
      throw data(null, { status: 404 });
    }
    throw error;
  }
}

export const meta = ({ loaderData, params }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: loaderData.post ? `Stats: ${loaderData.post.title}` : "Post stats",
    description: "Who read this post: views and visitors per day, likes, comments and referrers.",
    path: postStatsPath(params.id),
  }),
  { name: "robots", content: "noindex" },
];

export default function PostStats({ loaderData, params }: Route.ComponentProps) {
  const { days, stats, post, mailing } = loaderData;
  const allStats = days === undefined ? "/stats" : `/stats?days=${String(days)}`;
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link to={allStats}>Stats</Link>
          </li>
          <li aria-current="page">{post?.title ?? "Post"}</li>
        </ol>
      </nav>
      <h1 className="page-title">{post ? `Stats: ${post.title}` : "Post stats"}</h1>
      {post ? (
        <p>
          <Link to={postPath(post._id)}>Read the post</Link>
        </p>
      ) : null}
      <StatsPanels
        path={postStatsPath(params.id)}
        days={days}
        stats={stats}
        totals={(shown) => [
          { label: "Likes", value: shown.likes },
          { label: "Comments", value: shown.comments },
        ]}
        noViewsHint="Share its link where your readers are (a newsletter, a forum, a social network): their visits show here within a minute. A draft has views once it is published."
      >
        {(shown) => (
          <>
            <StatsSection title="Where readers came from">
              <ReferrerRanking referrers={shown.referrers} />
            </StatsSection>
            {mailing ? <MailingSection mailing={mailing} /> : null}
            <CsvDownload
              path={postStatsPath(params.id)}
              days={shown.daily.length}
              what="This post's views, visitors, likes and comments per day."
            />
          </>
        )}
      </StatsPanels>
    </>
  );
}

/** How the post's mailing to subscribers went (decision 028), counted from the outbox. */
function MailingSection({ mailing }: { mailing: PostNewsletterResponse }) {
  return (
    <StatsSection title="Newsletter">
      {mailing.status === "not_sent" ? (
        <p className="muted">Not e-mailed to subscribers.</p>
      ) : (
        <>
          <p>
            Sent to {mailing.recipients} {mailing.recipients === 1 ? "subscriber" : "subscribers"}
            {mailing.sentAt ? (
              <>
                {" "}
                on <LocalTime iso={mailing.sentAt} />
              </>
            ) : null}
            {mailing.status === "sending" ? " (still sending)" : ""}.
          </p>
          <StatsTotals
            totals={[
              { label: "Delivered", value: mailing.delivered },
              { label: "Failed", value: mailing.failed },
            ]}
          />
        </>
      )}
    </StatsSection>
  );
}
