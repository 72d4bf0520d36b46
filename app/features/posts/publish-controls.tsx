import { useEffect, useState, type ReactNode } from "react";
import type { PostStatus } from "../../../contract/content.js";
import { isoToZonedTime } from "../../../contract/publish-time.js";
import { Field } from "../forms/field.js";

export const STATUS_LABELS: Record<PostStatus, string> = {
  published: "Published",
  draft: "Draft",
  scheduled: "Scheduled",
};

/**
 * The browser's IANA time zone, once the page's script runs; UTC on the server, without
 * JavaScript, and in the first render in the browser (so it matches the server's HTML).
 */
function useBrowserTimeZone() {
  const [zone, setZone] = useState("UTC");
  useEffect(() => {
    setZone(Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
  }, []);
  return zone;
}

/** `2026-11-23 19:30 UTC`: the same text on the server and in any browser (no locale data). */
const utcText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** A time on the reader's own clock and in their words; in UTC until the page's script runs. */
export function LocalTime({ iso }: { iso: string }) {
  const [text, setText] = useState(() => utcText(iso));
  useEffect(() => {
    setText(
      new Intl.DateTimeFormat(undefined, {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "numeric",
        minute: "2-digit",
        timeZoneName: "short",
      }).format(new Date(iso)),
    );
  }, [iso]);
  return <time dateTime={iso}>{text}</time>;
}

type Choice = "draft" | "published" | "scheduled";

const BUTTONS: Record<Choice, { label: string; busy: string }> = {
  draft: { label: "Save draft", busy: "Saving…" },
  published: { label: "Publish", busy: "Publishing…" },
  scheduled: { label: "Schedule", busy: "Scheduling…" },
};

/**
 * What a post form does with the post: save it as a draft, publish it, or schedule it for a time
 * picked on the writer's own clock. The time zone goes with the form (UTC without JavaScript), so
 * the server reads the time as the writer meant it (decision 011).
 */
export function PublishControls(props: {
  /** The buttons shown, in order; the last is the form's main action. */
  choices: readonly Choice[];
  busy: Choice | undefined;
  /** Set once the form has done its work (a created post must not be sent again). */
  locked?: boolean;
  /** The post's current schedule, shown in the time field. */
  publishAt?: string | null | undefined;
  error: string | undefined;
  /** Set where one page holds two of these forms. */
  idPrefix?: string;
  /** Shown above the buttons: what else publishing does (the newsletter's choice). */
  children?: ReactNode;
  /** Shown beside the buttons, which stay in view as the writer scrolls (the autosave's state). */
  status?: ReactNode;
}) {
  const zone = useBrowserTimeZone();
  const id = `${props.idPrefix ?? "field"}-publishAt`;
  return (
    <fieldset className="publish-controls">
      <legend className="visually-hidden">Publishing</legend>
      {props.choices.includes("scheduled") ? (
        <Field
          // Remade when the zone is known, so a kept schedule shows on the writer's clock.
          key={zone}
          label="Publish at (for Schedule)"
          name="publishAt"
          id={id}
          type="datetime-local"
          step={1}
          defaultValue={props.publishAt ? isoToZonedTime(props.publishAt, zone) : undefined}
          error={props.error}
        />
      ) : null}
      <input type="hidden" name="timeZone" value={zone} />
      {props.children}
      <div className={props.status ? "publish-buttons publish-bar" : "publish-buttons"}>
        {props.status}
        {props.choices.map((choice, index) => (
          <button
            key={choice}
            type="submit"
            name="status"
            value={choice}
            className={
              index === props.choices.length - 1 ? "button" : "button button-ghost button-small"
            }
            disabled={props.busy !== undefined || props.locked === true}
          >
            {props.busy === choice ? BUTTONS[choice].busy : BUTTONS[choice].label}
          </button>
        ))}
      </div>
    </fieldset>
  );
}

/** Tells the author (or an admin) on a post's page that nobody else sees it yet. */
export function PostStatusNotice(props: { status: PostStatus; publishAt?: string | null }) {
  if (props.status === "published") return null;
  return (
    <p className="notice">
      {props.status === "scheduled" && props.publishAt ? (
        <>
          <strong>Scheduled</strong> for <LocalTime iso={props.publishAt} />
        </>
      ) : (
        <strong>Draft</strong>
      )}
      : only its author and admins can see this post until it is published.
    </p>
  );
}
