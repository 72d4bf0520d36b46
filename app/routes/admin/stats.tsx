import { data } from "react-router";
import { siteStats } from "../../../core/stats/stats-service.js";
import { requireAdminOrRefuse } from "../../features/admin/guard.server.js";
import {
  ChartSection,
  RangeRefused,
  RangeSwitch,
  StatsTotals,
  VIEWS_SERIES,
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
  if (days === undefined) return data({ site: context.site, days, stats: null }, { status: 400 });
  return { site: context.site, days, stats: await siteStats(context.deps, actor, days) };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Site stats",
    description: "The site's readers, sign-ups, posts and comments per day.",
    path: PATH,
  });

export default function SiteStats({ loaderData }: Route.ComponentProps) {
  const { days, stats } = loaderData;
  return (
    <>
      <h1 className="page-title">Site stats</h1>
      <p className="muted">Every post's readers, and what members brought. Days are in UTC.</p>
      <RangeSwitch path={PATH} days={days} />
      {stats === null ? (
        <RangeRefused />
      ) : (
        <>
          <StatsTotals
            totals={[
              { label: "Views", value: stats.views },
              { label: "Visitors", value: stats.visitors },
              { label: "Sign-ups", value: stats.signups },
              { label: "Posts", value: stats.posts },
              { label: "Comments", value: stats.comments },
            ]}
          />
          <ChartSection
            title="Views and visitors per day"
            days={stats.daily}
            series={VIEWS_SERIES}
          />
          <ChartSection
            title="Sign-ups, posts and comments per day"
            days={stats.daily}
            series={[
              { key: "signups", label: "Sign-ups" },
              { key: "posts", label: "Posts" },
              { key: "comments", label: "Comments" },
            ]}
          />
        </>
      )}
    </>
  );
}
