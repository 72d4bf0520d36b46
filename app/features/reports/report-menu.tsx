import { useEffect, useState } from "react";
import { useFetcher, useLocation } from "react-router";
import { REPORT_NOTE_MAX, REPORT_REASONS } from "../../../contract/report-rules.js";

const REASON_LABELS: Record<(typeof REPORT_REASONS)[number], string> = {
  spam: "Spam",
  harassment: "Harassment",
  other: "Something else",
};

/**
 * "Report" on a post, a comment or a profile: a menu that opens in place (a details element, so
 * it works without JavaScript) with the reasons and an optional note. The report goes to /report:
 * with JavaScript the answer shows in the menu, without it the page comes back with the message.
 */
export function ReportMenu(props: {
  target: { postId: string } | { commentId: string } | { userId: string };
  /** post, comment or user: what the form's legend names. */
  what: string;
}) {
  const location = useLocation();
  const fetcher = useFetcher<{ ok: boolean; message: string; status?: number }>();
  // Set once hydrated: the answer can then come back in place instead of by a redirect.
  const [inPlace, setInPlace] = useState(false);
  useEffect(() => {
    setInPlace(true);
  }, []);
  const [[field, value] = ["", ""]] = Object.entries(props.target);
  // From what it reports, not useId: a menu may be a viewer's island (decision 021).
  const id = `report-${field}-${value}`;
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  // Sent (or sent before): the thanks stay, the form goes; there is nothing left to send.
  const done = answer?.ok === true || answer?.status === 409;
  return (
    <details className={`report-menu${done ? " reported" : ""}`}>
      <summary>{done ? "Reported" : "Report"}</summary>
      {answer ? (
        <p role="status" className={answer.ok ? "notice" : "form-error"}>
          {answer.message}
        </p>
      ) : null}
      {done ? null : (
        <fetcher.Form method="post" action="/report" className="form report-form">
          <input type="hidden" name={field} value={value} />
          <input type="hidden" name="returnTo" value={location.pathname + location.search} />
          {inPlace ? <input type="hidden" name="inPlace" value="1" /> : null}
          <fieldset>
            <legend>Why are you reporting this {props.what}?</legend>
            {REPORT_REASONS.map((reason) => (
              <label key={reason} className="radio-label">
                {/* Nothing chosen beforehand: a report says what the reporter chose. */}
                <input type="radio" name="reason" value={reason} required /> {REASON_LABELS[reason]}
              </label>
            ))}
          </fieldset>
          <label htmlFor={`${id}-note`}>Note (optional)</label>
          <textarea id={`${id}-note`} name="note" rows={2} maxLength={REPORT_NOTE_MAX} />
          <button type="submit" className="button button-small">
            Send report
          </button>
        </fetcher.Form>
      )}
    </details>
  );
}
