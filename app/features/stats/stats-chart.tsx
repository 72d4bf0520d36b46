import { useState, type KeyboardEvent } from "react";
import { formatCount, monthDay, shortDate } from "../../ui/format.js";

/** One row of numbers a chart draws: its field in each day, and what it counts ("Views"). */
export interface ChartSeries<K extends string> {
  key: K;
  label: string;
}

type Day<K extends string> = { date: string } & Record<K, number>;

/** What one group of bars stands for: a day, or a week of days on a narrow screen. */
interface Point {
  first: string;
  last: string;
  /** A value per series, in the series' order. */
  values: readonly number[];
}

/**
 * The y-axis: 0 and two to four round steps (1, 2 or 5 times a power of ten), the last at or
 * above the largest value.
 */
export function axisTicks(largest: number): number[] {
  const top = Math.max(1, largest);
  for (let power = 1; ; power *= 10) {
    for (const multiple of [1, 2, 5]) {
      const step = multiple * power;
      if (top <= 4 * step) {
        const steps = Math.max(2, Math.ceil(top / step));
        return Array.from({ length: steps + 1 }, (_, index) => index * step);
      }
    }
  }
}

/**
 * A bar is at least 3 px wide when a day has 4 px a series (the plot's gaps included), beside the
 * axis' labels (48 px). A chart whose days need more room than its box shows weeks instead: the
 * server cannot measure the box, so it names the narrowest width its days fit in, one of these
 * rungs (stats.css has a container query for each).
 */
export const WEEKLY_RUNGS = [300, 420, 560, 720, 880, 1100, 1280] as const;
const PX_PER_SERIES = 4;
const AXIS_PX = 48;

/** The rung below which a chart shows weeks, or undefined when its days fit any screen. */
function weeklyBelow(days: number, series: number) {
  const need = days * series * PX_PER_SERIES + AXIS_PX;
  if (days <= 7 || need <= 240) return undefined;
  return WEEKLY_RUNGS.find((rung) => rung >= need) ?? WEEKLY_RUNGS[WEEKLY_RUNGS.length - 1];
}

/** The plot's units a point: bars between the gutters, a gap between a point's bars. */
const GUTTER = 8;
const GAP = 4;

/** "1 view", "5 new subscribers": every series' label is a plural in -s. */
const counted = (count: number, label: string) =>
  `${formatCount(count)} ${(count === 1 ? label.replace(/s$/, "") : label).toLowerCase()}`;

/** "5 views, 3 visitors". */
const valuesOf = (point: Point, series: readonly ChartSeries<string>[]) =>
  series.map((one, place) => counted(point.values[place] ?? 0, one.label)).join(", ");

/** "Nov 3", or "Nov 3 to Nov 9" for a week. */
const spanOf = (point: Point) =>
  point.first === point.last
    ? monthDay(point.first)
    : `${monthDay(point.first)} to ${monthDay(point.last)}`;

/** The days as weeks ending on the last day (the first may be shorter), each its days' sums. */
function weeksOf(days: readonly Point[]): Point[] {
  const weeks: Point[] = [];
  for (let end = days.length; end > 0; end -= 7) {
    const week = days.slice(Math.max(0, end - 7), end);
    const [first] = week;
    const last = week.at(-1);
    if (!first || !last) break;
    weeks.unshift({
      first: first.first,
      last: last.last,
      values: first.values.map((_, place) =>
        week.reduce((sum, day) => sum + (day.values[place] ?? 0), 0),
      ),
    });
  }
  return weeks;
}

/** What the chart shows, in a sentence: its span, each series' total, and its busiest point. */
function summaryOf(
  title: string,
  points: readonly Point[],
  series: readonly ChartSeries<string>[],
) {
  const first = points[0];
  const last = points.at(-1);
  const lead = series[0];
  if (!first || !last || !lead) return title;
  const weekly = first.first !== first.last || last.first !== last.last;
  const totals = series
    .map((one, place) =>
      counted(
        points.reduce((all, point) => all + (point.values[place] ?? 0), 0),
        one.label,
      ),
    )
    .join(", ");
  const busiest = points.reduce(
    (best, point) => ((point.values[0] ?? 0) > (best.values[0] ?? 0) ? point : best),
    first,
  );
  const peak =
    (busiest.values[0] ?? 0) > 0
      ? ` Most ${lead.label.toLowerCase()} ${weekly ? "in the week" : "on"} ${spanOf(busiest)}: ${valuesOf(busiest, series)}.`
      : "";
  return `${title}${weekly ? ", by week" : ""}, ${monthDay(first.first)} to ${monthDay(last.last)}: ${totals} in all.${peak}`;
}

const KEYS_MOVE: Record<string, (at: number, count: number) => number> = {
  ArrowLeft: (at) => at - 1,
  ArrowRight: (at) => at + 1,
  Home: () => 0,
  End: (_, count) => count - 1,
};

/** Plot units, rounded: enough for any screen, and shorter pages. */
const unit = (value: number) => Math.round(value * 100) / 100;

/**
 * One day's (or week's) bars, named by its values; stats.css shows the name as its tooltip (from
 * the attribute, so the page carries the text once).
 */
function ChartPoint(props: {
  point: Point;
  series: readonly ChartSeries<string>[];
  top: number;
  /** Which way its tooltip opens: towards the plot's middle, so it stays inside. */
  side: "start" | "mid" | "end";
  tabbable: boolean;
  onFocus: () => void;
}) {
  const { point, series } = props;
  const barWidth = (100 - 2 * GUTTER - GAP * (series.length - 1)) / Math.max(1, series.length);
  const bars = series.flatMap((one, place) => {
    const height = ((point.values[place] ?? 0) / props.top) * 100;
    return height > 0
      ? [
          <rect
            key={one.key}
            className={`chart-tone-${String(place + 1)}`}
            x={unit(GUTTER + place * (barWidth + GAP))}
            y={unit(100 - height)}
            width={unit(barWidth)}
            height={unit(height)}
          />,
        ]
      : [];
  });
  return (
    <div
      className={`chart-point chart-tip-${props.side}`}
      role="img"
      aria-label={`${spanOf(point)}: ${valuesOf(point, series)}`}
      tabIndex={props.tabbable ? 0 : -1}
      onFocus={props.onFocus}
    >
      {bars.length > 0 ? (
        <svg aria-hidden="true" viewBox="0 0 100 100" preserveAspectRatio="none">
          {bars}
        </svg>
      ) : null}
    </div>
  );
}

/**
 * The bars and their axis. Each point is an image named by its values ("Nov 3: 5 views, 3
 * visitors") that shows them in a tooltip on hover and on focus (CSS only, so without JavaScript
 * too). One point is in the tab order; the arrow keys, Home and End move along the others.
 */
function ChartPlot(props: {
  title: string;
  points: readonly Point[];
  series: readonly ChartSeries<string>[];
  className: string;
}) {
  const { points, series } = props;
  const ticks = axisTicks(Math.max(0, ...points.flatMap((point) => point.values)));
  const top = ticks.at(-1) ?? 1;
  const [active, setActive] = useState(points.length - 1);
  // The range may change under a kept component (a client navigation): stay on a point there is.
  const current = Math.min(active, points.length - 1);

  function move(event: KeyboardEvent<HTMLDivElement>) {
    const next = KEYS_MOVE[event.key]?.(current, points.length);
    if (next === undefined) return;
    event.preventDefault();
    const to = Math.min(points.length - 1, Math.max(0, next));
    setActive(to);
    event.currentTarget.querySelectorAll<HTMLElement>(".chart-point")[to]?.focus();
  }

  const first = points[0];
  const middle = points[Math.floor(points.length / 2)];
  const last = points.at(-1);
  return (
    <div className={`chart-frame ${props.className}`}>
      <div className="chart-axis" aria-hidden="true">
        {[...ticks].reverse().map((tick) => (
          <span key={tick}>{formatCount(tick)}</span>
        ))}
      </div>
      <div className="chart-area">
        <div
          className="chart-plot"
          role="group"
          aria-label={summaryOf(props.title, points, series)}
          onKeyDown={move}
        >
          <svg
            className="chart-lines"
            aria-hidden="true"
            viewBox="0 0 100 100"
            preserveAspectRatio="none"
          >
            {ticks.map((tick, index) => {
              const y = 100 - (tick / top) * 100;
              return (
                <line
                  key={tick}
                  className={index === 0 ? "chart-base" : "chart-grid"}
                  x1="0"
                  y1={unit(y)}
                  x2="100"
                  y2={unit(y)}
                />
              );
            })}
          </svg>
          {points.map((point, index) => (
            <ChartPoint
              key={point.first}
              point={point}
              series={series}
              top={top}
              side={
                index < points.length / 3
                  ? "start"
                  : index >= (2 * points.length) / 3
                    ? "end"
                    : "mid"
              }
              tabbable={index === current}
              onFocus={() => {
                setActive(index);
              }}
            />
          ))}
        </div>
        {first && middle && last ? (
          <p className="chart-dates" aria-hidden="true">
            <span>{monthDay(first.first)}</span>
            <span>{monthDay(middle.first)}</span>
            <span>{monthDay(last.last)}</span>
          </p>
        ) : null}
      </div>
    </div>
  );
}

/**
 * Numbers a day as bars, one beside the other for each series, drawn on the server (geometry in
 * SVG attributes: the pages' CSP allows no inline styles) and coloured by the theme's tokens
 * (`--chart-1`...). A y-axis of round values, each day's values on hover and focus, weeks instead
 * of days where days would be thinner than 3 px, and the same numbers as a table under it. With
 * nothing to draw it says so (`empty`) instead.
 */
export function StatsChart<K extends string>(props: {
  /** What it shows ("Views and visitors per day"): the plot's name and the table's caption. */
  title: string;
  days: readonly Day<K>[];
  /** At most three, drawn in the chart tokens' order. */
  series: readonly ChartSeries<K>[];
  /** Said in place of the chart when every value is 0. */
  empty: string;
}) {
  const { title, days, series } = props;
  const points = days.map((day) => ({
    first: day.date,
    last: day.date,
    values: series.map((one) => day[one.key]),
  }));
  if (points.every((point) => point.values.every((value) => value === 0))) {
    return <p className="stats-empty">{props.empty}</p>;
  }
  const below = weeklyBelow(days.length, series.length);
  return (
    <figure className={below ? `stats-chart chart-weekly-below-${String(below)}` : "stats-chart"}>
      <ul className="chart-legend" aria-hidden="true">
        {series.map((one, index) => (
          <li key={one.key}>
            <span className={`chart-swatch chart-tone-${String(index + 1)}`} />
            {one.label}
          </li>
        ))}
      </ul>
      <ChartPlot title={title} points={points} series={series} className="chart-by-day" />
      {below ? (
        <ChartPlot
          title={title}
          points={weeksOf(points)}
          series={series}
          className="chart-by-week"
        />
      ) : null}
      <details className="chart-table">
        <summary>Show as a table</summary>
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {series.map((one) => (
                <th key={one.key} scope="col">
                  {one.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{shortDate(`${day.date}T00:00:00.000Z`)}</th>
                {series.map((one) => (
                  <td key={one.key}>{formatCount(day[one.key])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
