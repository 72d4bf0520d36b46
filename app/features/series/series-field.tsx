import { Link } from "react-router";
import { ownSeriesPath } from "../../../contract/page-paths.js";
import { SelectField } from "../forms/field.js";

/** A writer's series as the editor offers them. */
export interface SeriesChoice {
  _id: string;
  title: string;
}

/** A writer's series as the field offers them: by title. */
export const seriesChoices = (series: readonly SeriesChoice[]): SeriesChoice[] =>
  series.map(({ _id, title }) => ({ _id, title })).sort((a, b) => a.title.localeCompare(b.title));

/**
 * The full editor's "Series" field (decision 032): none, or one of the writer's series, which the
 * post joins at its end (a post already in it keeps its place); the parts are ordered on the
 * series' own page.
 */
export function SeriesField(props: {
  choices: readonly SeriesChoice[];
  current?: string | null | undefined;
  error?: string | undefined;
}) {
  return (
    <div className="series-field">
      <SelectField
        label="Series (optional)"
        name="series"
        defaultValue={props.current ?? ""}
        error={props.error}
        hint="A post joins at the end of its series; put the parts in order on the series' page."
      >
        <option value="">None</option>
        {props.choices.map((series) => (
          <option key={series._id} value={series._id}>
            {series.title}
          </option>
        ))}
      </SelectField>
      <p className="field-hint">
        <Link to={ownSeriesPath}>Manage series</Link>
      </p>
    </div>
  );
}
