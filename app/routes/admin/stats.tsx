import { data } from "react-router";
import { siteStats } from "../../../core/stats/stats-service.js";
import { requireAdminOrRefuse } from "../../features/admin/guard.server.js";
import { ChartSection, StatsPanels } from "../../features/stats/stats-parts.js";
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
            />
            <ChartSection
              title="New subscribers per day"
              days={shown.daily}
              series={[{ key: "subscribers", label: "New subscribers" }]}
            />
          </>
        )}
      </StatsPanels>
    </>
  );
}
