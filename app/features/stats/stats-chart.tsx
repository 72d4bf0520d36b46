import { formatCount, monthDay, shortDate } from "../../ui/format.js";

/** One row of numbers a chart draws: its field in each day, and what it counts ("Views"). */
export interface ChartSeries<K extends string> {
  key: K;
  label: string;
}

type Day<K extends string> = { date: string } & Record<K, number>;

/** The plot's own units: a slot this wide a day, this high; CSS stretches it to its box. */
const SLOT = 12;
const HEIGHT = 100;
/** The space left on each side of a day's bars, as a share of its slot. */
const GUTTER = 0.12;

/** The axis' top: the largest value rounded up to 1, 2 or 5 times a power of ten (1 for none). */
export function axisTop(largest: number): number {
  if (largest <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(largest));
  return ([1, 2, 5, 10].find((step) => step * power >= largest) ?? 10) * power;
}

const fullDate = (day: string) => shortDate(`${day}T00:00:00.000Z`);

/** "5 views, 3 visitors". */
const valuesOf = <K extends string>(day: Day<K>, series: readonly ChartSeries<K>[]) =>
  series.map((one) => `${formatCount(day[one.key])} ${one.label.toLowerCase()}`).join(", ");

/** What the chart shows, in a sentence: its days, each series' total, and its busiest day. */
function summaryOf<K extends string>(
  title: string,
  days: readonly Day<K>[],
  series: readonly ChartSeries<K>[],
) {
  const first = days[0];
  const last = days.at(-1);
  const lead = series[0];
  if (!first || !last || !lead) return title;
  const totals = series
    .map((one) => {
      const sum = days.reduce((all, day) => all + day[one.key], 0);
      return `${formatCount(sum)} ${one.label.toLowerCase()}`;
    })
    .join(", ");
  const busiest = days.reduce((best, day) => (day[lead.key] > best[lead.key] ? day : best), first);
  const peak =
    busiest[lead.key] > 0
      ? ` Most ${lead.label.toLowerCase()} on ${monthDay(busiest.date)}: ${valuesOf(busiest, series)}.`
      : "";
  return `${title}, ${monthDay(first.date)} to ${monthDay(last.date)}: ${totals} in all.${peak}`;
}

/**
 * Numbers a day as bars, one beside the other for each series, drawn on the server: readable
 * without JavaScript, coloured by the theme's tokens (`--chart-1`...), a day's values on hover
 * from its `<title>`, and the same numbers as a table for screen readers. The dates and the top
 * value sit outside the SVG, as text, so they stay legible however wide the plot is stretched.
 */
export function StatsChart<K extends string>(props: {
  /** What it shows ("Views and visitors per day"): its accessible name and the table's caption. */
  title: string;
  days: readonly Day<K>[];
  /** At most three, drawn in the chart tokens' order. */
  series: readonly ChartSeries<K>[];
}) {
  const { title, days, series } = props;
  const top = axisTop(Math.max(0, ...days.flatMap((day) => series.map((one) => day[one.key]))));
  const width = Math.max(1, days.length) * SLOT;
  const barWidth = (SLOT * (1 - 2 * GUTTER)) / Math.max(1, series.length);
  const first = days[0];
  const middle = days[Math.floor(days.length / 2)];
  const last = days.at(-1);
  return (
    <figure className="stats-chart">
      <ul className="chart-legend" aria-hidden="true">
        {series.map((one, index) => (
          <li key={one.key}>
            <span className={`chart-swatch chart-tone-${String(index + 1)}`} />
            {one.label}
          </li>
        ))}
      </ul>
      <p className="chart-top" aria-hidden="true">
        {formatCount(top)}
      </p>
      <svg
        className="chart-plot"
        role="img"
        aria-label={summaryOf(title, days, series)}
        viewBox={`0 0 ${String(width)} ${String(HEIGHT)}`}
        preserveAspectRatio="none"
        width="100%"
        height="160"
      >
        <line className="chart-grid" x1="0" y1="0" x2={width} y2="0" />
        {days.map((day, index) => (
          <g key={day.date}>
            <title>{`${fullDate(day.date)}: ${valuesOf(day, series)}`}</title>
            {/* The whole slot answers the pointer, so a quiet day shows its zeros too. */}
            <rect className="chart-hit" x={index * SLOT} y="0" width={SLOT} height={HEIGHT} />
            {series.map((one, place) => {
              const height = (day[one.key] / top) * HEIGHT;
              return height > 0 ? (
                <rect
                  key={one.key}
                  className={`chart-tone-${String(place + 1)}`}
                  x={index * SLOT + SLOT * GUTTER + place * barWidth}
                  y={HEIGHT - height}
                  width={barWidth * 0.9}
                  height={height}
                />
              ) : null;
            })}
          </g>
        ))}
        <line className="chart-base" x1="0" y1={HEIGHT} x2={width} y2={HEIGHT} />
      </svg>
      {first && middle && last ? (
        <p className="chart-dates" aria-hidden="true">
          <span>{monthDay(first.date)}</span>
          <span>{monthDay(middle.date)}</span>
          <span>{monthDay(last.date)}</span>
        </p>
      ) : null}
      <div className="visually-hidden">
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
                <th scope="row">{fullDate(day.date)}</th>
                {series.map((one) => (
                  <td key={one.key}>{formatCount(day[one.key])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
