import { Link } from "react-router";
import { postPath, seriesPath } from "../../../contract/page-paths.js";

/** A part of a series as a post's page lists it: the posts readers see, in order. */
export interface SeriesPart {
  _id: string;
  title: string;
}

/** Where a post stands in its series (decision 032), from the parts its readers see. */
function placeOf(postId: string, parts: readonly SeriesPart[]) {
  const at = parts.findIndex((part) => part._id === postId);
  return { at, previous: parts[at - 1], next: at === -1 ? undefined : parts[at + 1] };
}

/**
 * "Part n of m in <series>" on a post's page (DESIGN.md 11, "Pages and series"): the parts
 * readers see, this one marked, and the previous and next parts. The same for every reader (a
 * draft's page, its writer's alone, shows where it will stand).
 */
export function SeriesBox(props: {
  postId: string;
  /** The post's series; none, no box. */
  series: { _id: string; title: string } | null;
  parts: readonly SeriesPart[];
}) {
  const { postId, series, parts } = props;
  const { at, previous, next } = placeOf(postId, parts);
  if (series === null || at === -1) return null;
  return (
    <nav className="series-box" aria-labelledby="series-box-title">
      <p id="series-box-title" className="series-box-title">
        {`Part ${String(at + 1)} of ${String(parts.length)} in `}
        <Link to={seriesPath(series._id)}>{series.title}</Link>
      </p>
      <ol className="series-parts">
        {parts.map((part) => (
          <li key={part._id}>
            {part._id === postId ? (
              <span aria-current="page">{part.title}</span>
            ) : (
              <Link to={postPath(part._id)}>{part.title}</Link>
            )}
          </li>
        ))}
      </ol>
      <SeriesSteps previous={previous} next={next} />
    </nav>
  );
}

/** Previous and Next in a series, where there are such parts. */
export function SeriesSteps(props: {
  previous?: SeriesPart | undefined;
  next?: SeriesPart | undefined;
}) {
  const { previous, next } = props;
  if (!previous && !next) return null;
  return (
    <p className="series-steps">
      {previous ? (
        <Link to={postPath(previous._id)} rel="prev" className="series-previous">
          <span aria-hidden="true">← </span>
          <span className="series-step-label">Previous:</span> {previous.title}
        </Link>
      ) : null}
      {next ? (
        <Link to={postPath(next._id)} rel="next" className="series-next">
          <span className="series-step-label">Next:</span> {next.title}
          <span aria-hidden="true"> →</span>
        </Link>
      ) : null}
    </p>
  );
}

/** The previous and next parts after a post's body, where its reader finishes it. */
export function SeriesEnd(props: { postId: string; parts: readonly SeriesPart[] }) {
  const { previous, next } = placeOf(props.postId, props.parts);
  if (!previous && !next) return null;
  return (
    <nav className="series-end" aria-label="More of this series">
      <SeriesSteps previous={previous} next={next} />
    </nav>
  );
}
