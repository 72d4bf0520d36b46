import { Form } from "react-router";
import type { FieldErrors } from "../../../contract/field-errors.js";
import { POST_TITLE_MAX } from "../../../contract/limits.js";
import type { PostStatus } from "../../../contract/content.js";
import { SERIES_DESCRIPTION_MAX } from "../../../contract/series-rules.js";
import { Field, SelectField, TextAreaField } from "../forms/field.js";
import { FormAlert } from "../forms/form-alert.js";
import type { ActionResult, useClientValidation } from "../forms/form-state.js";
import { STATUS_LABELS } from "../posts/publish-controls.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import {
  SERIES_ADD,
  SERIES_FORM,
  SERIES_MOVE,
  SERIES_MOVES,
  seriesPostField,
} from "./series-form.js";

/** A post as the writer's form lists it. */
export interface SeriesRow {
  _id: string;
  title: string;
  status: PostStatus;
}

/** A post the writer may add: theirs, in no series or in another (which it then leaves). */
export interface OfferedPost extends SeriesRow {
  inSeries: string | null;
}

const MOVE_WORDS = { up: "Up", down: "Down", remove: "Remove" } as const;

/**
 * The series' writer's form on its page (decision 032): title, description, the posts in order
 * with Up, Down and Remove on each, and a post to add. The buttons send the form (keyboard, touch
 * and no JavaScript alike; no drag), so a move saves the rest of it too, as Save does.
 */
export function SeriesManager(props: {
  series: { title: string; description: string; updatedAt: string };
  /** The posts in order: as sent by a refused save, else as stored. */
  rows: readonly SeriesRow[];
  offered: readonly OfferedPost[];
  typed: { title: string; description: string } | undefined;
  errors: FieldErrors;
  result: ActionResult | undefined;
  busy: boolean;
  /** The client check's handlers for the form element. */
  form: ReturnType<typeof useClientValidation>["form"];
}) {
  const { series, rows, errors, typed } = props;
  return (
    <section className="card series-manage" aria-labelledby="manage-series-title">
      <h2 id="manage-series-title">Manage this series</h2>
      <Form
        method="post"
        noValidate
        {...props.form}
        className="form"
        // Made again once saved: the fields start from the stored series.
        key={series.updatedAt}
      >
        {/* Enter in a field sends the form with its first submit button: Save, not a row's Up. */}
        <button type="submit" className="visually-hidden" tabIndex={-1} aria-hidden="true">
          Save
        </button>
        <input type="hidden" name={SERIES_FORM} value="1" />
        <FormAlert result={props.result} />
        <SeriesFields
          title={typed?.title ?? series.title}
          description={typed?.description ?? series.description}
          errors={errors}
        />
        <fieldset className="fieldset">
          <legend>Posts, in reading order</legend>
          <p className="field-hint">
            Up, Down and Remove save the form, as Save does. A removed post stays on the site, in no
            series. Readers see the published posts alone.
          </p>
          {rows.length === 0 ? (
            <p className="muted">No posts yet: add one below.</p>
          ) : (
            <ol className="series-rows">
              {rows.map((row, index) => (
                <SeriesRowItem
                  key={row._id}
                  row={row}
                  index={index}
                  last={index === rows.length - 1}
                  error={errors[`posts.${String(index)}`]}
                />
              ))}
            </ol>
          )}
          {errors.posts ? <p className="field-error">{errors.posts}</p> : null}
        </fieldset>
        <SelectField
          label="Add a post"
          name={SERIES_ADD}
          defaultValue=""
          hint="Your posts in no series or in another one (drafts too). Added at the end when you save."
        >
          <option value="">None</option>
          {props.offered.map((post) => (
            <option key={post._id} value={post._id}>
              {post.title}
              {post.status === "published" ? "" : ` (${STATUS_LABELS[post.status]})`}
              {post.inSeries === null ? "" : ` (now in “${post.inSeries}”)`}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="button" disabled={props.busy}>
          Save
        </button>
      </Form>
      <DeleteSeries />
    </section>
  );
}

function SeriesRowItem(props: {
  row: SeriesRow;
  index: number;
  last: boolean;
  error: string | undefined;
}) {
  const { row, index } = props;
  return (
    <li className="series-row">
      <input type="hidden" name={seriesPostField(index)} value={row._id} />
      <span className="series-row-title">
        {index + 1}. {row.title}
        {row.status === "published" ? null : (
          <>
            {" "}
            <span className="status-tag">{STATUS_LABELS[row.status]}</span>
          </>
        )}
      </span>
      <span className="series-moves">
        {SERIES_MOVES.map((move) =>
          (move === "up" && index === 0) || (move === "down" && props.last) ? null : (
            <button
              key={move}
              type="submit"
              name={SERIES_MOVE}
              value={`${String(index)}:${move}`}
              className="button button-ghost button-small"
              aria-label={`${move === "remove" ? "Remove" : `Move ${move}`} “${row.title}”`}
            >
              {MOVE_WORDS[move]}
            </button>
          ),
        )}
      </span>
      {props.error ? <p className="field-error">{props.error}</p> : null}
    </li>
  );
}

/** A series' title and description fields, as the writer last typed or saved them. */
export function SeriesFields(props: {
  title: string | undefined;
  description: string | undefined;
  errors: FieldErrors;
}) {
  const { errors } = props;
  return (
    <>
      <Field
        label="Title"
        name="title"
        maxLength={POST_TITLE_MAX}
        defaultValue={props.title}
        error={errors.title}
      />
      <TextAreaField
        label="Description (optional)"
        name="description"
        rows={3}
        maxLength={SERIES_DESCRIPTION_MAX}
        defaultValue={props.description}
        error={errors.description}
      />
    </>
  );
}

/** Delete series, asked first: its writer's, or an admin's on another's series. */
export function DeleteSeries() {
  return (
    <div className="series-delete">
      <ConfirmDelete
        what="series"
        label="Delete series"
        fields={{ intent: "delete" }}
        warning="Once deleted, you will not be able to recover this series! Its posts stay on the site, in no series."
      />
    </div>
  );
}
