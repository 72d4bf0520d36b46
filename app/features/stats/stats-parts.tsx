import { useId, type ReactNode } from "react";
import { Link } from "react-router";
import { STATS_RANGES, type StatsRange } from "../../../contract/stats-ranges.js";
import { formatCount } from "../../ui/format.js";
import { StatsChart, type ChartSeries } from "./stats-chart.js";
import { postStatsPath } from "../../../contract/page-paths.js";

/** "1 view", "12 visitors". */
const counted = (count: number, unit: "view" | "visitor") =>
  `${formatCount(count)} ${unit}${count === 1 ? "" : "s"}`;

/** The ranges as plain links (no script needed), the one shown marked current. */
export function RangeSwitch(props: { path: string; days: StatsRange | undefined }) {
  return (
    <nav aria-label="Days shown" className="tab-links">
      {STATS_RANGES.map((range) => (
        <Link
          key={range}
          to={`${props.path}?days=${String(range)}`}
          aria-current={range === props.days ? "page" : undefined}
        >
          {range} days
        </Link>
      ))}
    </nav>
  );
}

/** A range other than those: said in place of the numbers (the page answers 400). */
export function RangeRefused() {
  return (
    <p className="form-error" role="alert">
      Stats cover the last {STATS_RANGES.slice(0, -1).join(", ")} or {STATS_RANGES.at(-1)} days:
      choose one of them above.
    </p>
  );
}

/** The range's totals, each in a card. */
export function StatsTotals(props: { totals: readonly { label: string; value: number }[] }) {
  return (
    <dl className="stats-totals">
      {props.totals.map((total) => (
        <div key={total.label} className="card">
          <dt>{total.label}</dt>
          <dd>{formatCount(total.value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A part of a stats page under its heading, named by it. */
export function StatsSection(props: { title: string; children: ReactNode }) {
  const heading = useId();
  return (
    <section className="card stats-section" aria-labelledby={heading}>
      <h2 id={heading}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** A section of one chart, headed as the chart is named; `empty` when it has nothing to draw. */
export function ChartSection<K extends string>(props: {
  title: string;
  days: readonly ({ date: string } & Record<K, number>)[];
  series: readonly ChartSeries<K>[];
  empty: string;
}) {
  return (
    <StatsSection title={props.title}>
      <StatsChart title={props.title} days={props.days} series={props.series} empty={props.empty} />
    </StatsSection>
  );
}

/** What every stats page charts first. */
export const VIEWS_SERIES = [
  { key: "views", label: "Views" },
  { key: "visitors", label: "Visitors" },
] as const;

/** The numbers every stats page shows first. */
interface ReadStats {
  views: number;
  visitors: number;
  daily: readonly { date: string; views: number; visitors: number }[];
}

/**
 * A stats page's body: the range switch, then (the range refused, or) views and visitors with
 * the page's own totals after them, the views chart (or, with no views, a line saying so and
 * `noViewsHint`), and the page's own sections.
 */
export function StatsPanels<S extends ReadStats>(props: {
  path: string;
  days: StatsRange | undefined;
  stats: S | null;
  totals: (stats: S) => readonly { label: string; value: number }[];
  noViewsHint: string;
  children: (stats: S) => ReactNode;
}) {
  const { stats } = props;
  return (
    <>
      <RangeSwitch path={props.path} days={props.days} />
      {stats === null ? (
        <RangeRefused />
      ) : (
        <>
          <StatsTotals
            totals={[
              { label: "Views", value: stats.views },
              { label: "Visitors", value: stats.visitors },
              ...props.totals(stats),
            ]}
          />
          <ChartSection
            title="Views and visitors per day"
            days={stats.daily}
            series={VIEWS_SERIES}
            empty={`No views in the last ${String(stats.daily.length)} days yet. ${props.noViewsHint}`}
          />
          {props.children(stats)}
        </>
      )}
    </>
  );
}

/**
 * Posts or sites, most first, with their count (and their visitors, where a row has them);
 * `empty` when there are none.
 */
export function Ranking(props: {
  rows: readonly { key: string; name: ReactNode; count: number; visitors?: number }[];
  unit: "view" | "visitor";
  empty: string;
}) {
  if (props.rows.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <ol className="stats-ranking">
      {props.rows.map((row) => (
        <li key={row.key}>
          <span className="stats-name">{row.name}</span>
          <span className="stats-count">
            {row.visitors === undefined
              ? counted(row.count, props.unit)
              : `${counted(row.count, props.unit)}, ${counted(row.visitors, "visitor")}`}
          </span>
        </li>
      ))}
    </ol>
  );
}

/**
 * A stats page's numbers a day as a file: its CSV sits at the page's address and
 * `/export.csv`, for the same range (a resource route; the browser downloads it).
 */
export function CsvDownload(props: { path: string; days: number; what: string }) {
  return (
    <p>
      <a
        href={`${props.path}/export.csv?days=${String(props.days)}`}
        className="button button-ghost"
        download
      >
        Download CSV
      </a>{" "}
      <span className="muted">{props.what}</span>
    </p>
  );
}

/**
 * Where readers came from: other sites' host names, as text (never links to them). Each reader
 * counts once a day, for the site their first view came from, so the count is of visitors.
 */
export function ReferrerRanking(props: { referrers: readonly { host: string; views: number }[] }) {
  return (
    <Ranking
      rows={props.referrers.map((referrer) => ({
        key: referrer.host,
        name: referrer.host,
        count: referrer.views,
      }))}
      unit="visitor"
      empty="No other site sent readers in these days. Readers who typed the address, used a bookmark or came from this site are not listed."
    />
  );
}

/** Links to the post's stats (its author's and admins'), as the post page's tools show it. */
export function PostStatsLink(props: { postId: string }) {
  return (
    <Link to={postStatsPath(props.postId)} className="button button-small button-ghost">
      Stats
    </Link>
  );
}
