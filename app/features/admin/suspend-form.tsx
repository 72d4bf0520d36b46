import { useId } from "react";
import { Form } from "react-router";
import { SUSPENSION_REASON_MAX } from "../../../contract/moderation.js";

/**
 * Suspending asks first, as deleting does, and takes the terms the member is told: a reason and,
 * if it should lift by itself, the day it ends. A disclosure, so it works without JavaScript.
 */
export function SuspendForm(props: {
  /** Who is suspended, as the confirm button names them. */
  username: string;
  label: string;
  /** The form's hidden fields (which row, which action). */
  fields: Record<string, string>;
}) {
  const id = useId();
  return (
    <details className="confirm-details">
      <summary className="button button-small button-danger">{props.label}</summary>
      <Form method="post" className="suspend-form">
        {Object.entries(props.fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <label htmlFor={`${id}-reason`}>Reason (shown to {props.username})</label>
        <textarea id={`${id}-reason`} name="reason" rows={2} maxLength={SUSPENSION_REASON_MAX} />
        <label htmlFor={`${id}-until`}>Ends on (optional; UTC)</label>
        <input id={`${id}-until`} name="until" type="date" />
        <button type="submit" className="button button-small button-danger">
          Suspend {props.username}
        </button>
      </Form>
    </details>
  );
}

/** The terms as the API takes them: a date from the form is the start of that day, UTC. */
export function suspensionTermsOf(fields: Record<string, string>) {
  const until = fields.until?.trim() ?? "";
  return {
    reason: fields.reason ?? "",
    ...(until === ""
      ? {}
      : { until: /^\d{4}-\d{2}-\d{2}$/.test(until) ? `${until}T00:00:00Z` : until }),
  };
}
