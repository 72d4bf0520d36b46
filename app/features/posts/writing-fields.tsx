import { useState } from "react";
import { META_DESCRIPTION_MAX } from "../../../contract/limits.js";
import type { FieldErrors } from "../../../contract/validation.js";
import { Field, TextAreaField } from "../forms/field.js";
import { SeriesField, type SeriesChoice } from "../series/series-field.js";
import { tagSuggestions } from "./tag-suggestions.js";

/**
 * The fields of DESIGN.md 10 ("Writing") in a post form: tags with suggestions from the most used
 * ones, the writer's series (decision 032), and the search-engine fields folded away until wanted
 * (open when one of them is refused).
 */
export function WritingFields(props: {
  errors: FieldErrors;
  suggestions: readonly { name: string }[];
  /** The post's own values, when it has them (the editor); the create form starts blank. */
  post?: { tags: string[]; metaDescription: string | null; canonicalUrl: string | null };
  /** The writer's series to choose from, and the post's own (none when absent). */
  series: { choices: readonly SeriesChoice[]; current?: string | null };
}) {
  const { errors, post } = props;
  const [typed, setTyped] = useState(post?.tags.join(", ") ?? "");
  const offered = tagSuggestions(
    typed,
    props.suggestions.map((tag) => tag.name),
  );
  return (
    <>
      <Field
        label="Tags (optional: up to 5, separated by commas)"
        name="tags"
        list="tag-suggestions"
        autoComplete="off"
        defaultValue={post?.tags.join(", ")}
        error={errors.tags}
        onInput={(event) => {
          setTyped(event.currentTarget.value);
        }}
      />
      <datalist id="tag-suggestions">
        {offered.map((value) => (
          <option key={value} value={value} />
        ))}
      </datalist>
      <SeriesField
        choices={props.series.choices}
        current={props.series.current}
        error={errors.series}
      />
      <details className="seo-fields" open={Boolean(errors.metaDescription ?? errors.canonicalUrl)}>
        <summary>Search engines and sharing</summary>
        <TextAreaField
          label={`Meta description (optional: what search results and share cards show, up to ${String(META_DESCRIPTION_MAX)} characters)`}
          name="metaDescription"
          rows={2}
          maxLength={META_DESCRIPTION_MAX}
          defaultValue={post?.metaDescription ?? undefined}
          error={errors.metaDescription}
        />
        <Field
          label="Canonical URL (optional: where this post first appeared, if elsewhere)"
          name="canonicalUrl"
          type="url"
          inputMode="url"
          placeholder="https://"
          defaultValue={post?.canonicalUrl ?? undefined}
          error={errors.canonicalUrl}
        />
      </details>
    </>
  );
}
