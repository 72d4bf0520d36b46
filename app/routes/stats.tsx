import { data, Link } from "react-router";
import { writerStats } from "../../core/stats/stats-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import {
  ChartSection,
  CsvDownload,
  Ranking,
  ReferrerRanking,
  StatsPanels,
  StatsSection,
} from "../features/stats/stats-parts.js";
import { statsRangeOf } from "../features/stats/stats-range.server.js";
import statsStyles from "../features/stats/stats.css?url";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/stats";
import { postStatsPath } from "../../contract/page-paths.js";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: statsStyles }];

/** A writer's stats over all their posts (issue 37): every member writes, so every member has them. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/stats");
  const days = statsRangeOf(request);
  if (days === undefined) return data({ site: context.site, days, stats: null }, { status: 400 });
  return {
    site: context.site,
    days,
    stats: await writerStats(context.deps, viewer.actor.id, days),
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Stats",
    description: "Who read your posts: views, visitors, likes and comments per day.",
    path: "/stats",
  }),
  { name: "robots", content: "noindex" },
];

export default function Stats({ loaderData }: Route.ComponentProps) {
  const { days, stats } = loaderData;
  return (
    <>
      <h1 className="page-title">Stats</h1>
      <p className="muted">
        Readers of your posts, counted on the server: no cookies, nothing kept that tells who they
        are. Days are in UTC.
      </p>
      <StatsPanels
        path="/stats"
        days={days}
        stats={stats}
        totals={(shown) => [
          { label: "Likes", value: shown.likes },
          { label: "Comments", value: shown.comments },
          { label: "Subscribers", value: shown.subscribers },
        ]}
        noViewsHint="Share a post where your readers are (a newsletter, a forum, a social network): their visits show here within a minute."
      >
        {(shown) => (
          <>
            <ChartSection
              title="Likes and comments per day"
              days={shown.daily}
              series={[
                { key: "likes", label: "Likes" },
                { key: "comments", label: "Comments" },
              ]}
              empty={`No likes or comments in the last ${String(shown.daily.length)} days.`}
            />
            <ChartSection
              title="New subscribers per day"
              days={shown.daily}
              series={[{ key: "subscribers", label: "New subscribers" }]}
              empty={`No new subscribers in the last ${String(shown.daily.length)} days.`}
            />
            <StatsSection title="Most read posts">
              <Ranking
                rows={shown.posts.map((post) => ({
                  key: post._id,
                  name: <Link to={postStatsPath(post._id)}>{post.title}</Link>,
                  count: post.views,
                }))}
                unit="view"
                empty="None of your posts was read in these days yet."
              />
            </StatsSection>
            <StatsSection title="Where readers came from">
              <ReferrerRanking referrers={shown.referrers} />
            </StatsSection>
            <CsvDownload
              path="/stats"
              days={shown.daily.length}
              what="Views, visitors, likes and comments per day."
            />
          </>
        )}
      </StatsPanels>
    </>
  );
}
