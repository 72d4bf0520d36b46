import { data, Link } from "react-router";
import { postPath } from "../../../contract/page-paths.js";
import { siteRankings, siteStats } from "../../../core/stats/stats-service.js";
import { requireAdminOrRefuse } from "../../features/admin/guard.server.js";
import {
  ChartSection,
  CsvDownload,
  Ranking,
  ReferrerRanking,
  StatsPanels,
  StatsSection,
} from "../../features/stats/stats-parts.js";
import { statsRangeOf } from "../../features/stats/stats-range.server.js";
import statsStyles from "../../features/stats/stats.css?url";
import { pageMeta } from "../../meta.js";
import type { Route } from "./+types/stats";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: statsStyles }];

const PATH = "/admin-dashboard/stats";

/** The whole site's numbers a day (issue 37): readers, and what members brought. */
export async function loader({ context, request }: Route.LoaderArgs) {
  // A member is told the page is the admins' (403), as the API tells them.
  const { actor } = requireAdminOrRefuse(context);
  const days = statsRangeOf(request);
  if (days === undefined) {
    return data({ site: context.site, days, stats: null, rankings: null }, { status: 400 });
  }
  const [stats, rankings] = await Promise.all([
    siteStats(context.deps, actor, days),
    siteRankings(context.deps, actor, days),
  ]);
  return { site: context.site, days, stats, rankings };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Site stats",
    description: "The site's readers, sign-ups, posts and comments per day.",
    path: PATH,
  });

export default function SiteStats({ loaderData }: Route.ComponentProps) {
  const { days, stats, rankings } = loaderData;
  return (
    <>
      <h1 className="page-title">Site stats</h1>
      <p className="muted">Every post's readers, and what members brought. Days are in UTC.</p>
      <StatsPanels
        path={PATH}
        days={days}
        stats={stats}
        totals={(shown) => [
          { label: "Sign-ups", value: shown.signups },
          { label: "Posts", value: shown.posts },
          { label: "Comments", value: shown.comments },
          { label: "Subscribers", value: shown.subscribers },
        ]}
        noViewsHint="Readers of any published post show here within a minute of their visit."
      >
        {(shown) => (
          <>
            <ChartSection
              title="Sign-ups, posts and comments per day"
              days={shown.daily}
              series={[
                { key: "signups", label: "Sign-ups" },
                { key: "posts", label: "Posts" },
                { key: "comments", label: "Comments" },
              ]}
              empty={`No sign-ups, posts or comments in the last ${String(shown.daily.length)} days.`}
            />
            <ChartSection
              title="New subscribers per day"
              days={shown.daily}
              series={[{ key: "subscribers", label: "New subscribers" }]}
              empty={`No new subscribers in the last ${String(shown.daily.length)} days.`}
            />
            <StatsSection title="Most read posts">
              <Ranking
                rows={(rankings?.posts ?? []).map((post) => ({
                  key: post._id,
                  name: <Link to={postPath(post._id)}>{post.title}</Link>,
                  count: post.views,
                  visitors: post.visitors,
                }))}
                unit="view"
                empty="No post was read in these days yet."
              />
            </StatsSection>
            <StatsSection title="Where readers came from">
              <ReferrerRanking referrers={rankings?.referrers ?? []} />
            </StatsSection>
            <CsvDownload
              path={PATH}
              days={shown.daily.length}
              what="The site's views, visitors, sign-ups, posts, comments and new subscribers per day."
            />
          </>
        )}
      </StatsPanels>
    </>
  );
}
