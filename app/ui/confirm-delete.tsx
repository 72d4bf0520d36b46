import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Form } from "react-router";

/**
 * A delete button that asks first (SPEC.md 6: 'Are you sure?', 'Once deleted, you will not be able
 * to recover this …!'). It is a real form: without JavaScript it submits directly. Other actions
 * that cannot be undone (revoking a token) ask the same way, in their own words.
 */
export function ConfirmDelete(props: {
  /** user, post, category or comment: the word SPEC.md's dialog uses. */
  what: string;
  label: string;
  fields: Record<string, string>;
  action?: string;
  className?: string;
  /** Shown instead of the label, which then names the button for screen readers. */
  icon?: ReactNode;
  /** The button's accessible name, where the label alone does not name its row. */
  name?: string;
  /** Said instead of SPEC.md's 'Once deleted…', for an action that is not a delete. */
  warning?: string;
  /** The confirming button's label: SPEC.md's 'OK' unless said. */
  confirm?: string;
}) {
  const form = useRef<HTMLFormElement>(null);
  const titleId = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  // The dialog exists only while asking: a page of comments or table rows carries one per row
  // otherwise. Before hydration (or without JavaScript) the button simply submits.
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    if (asking && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [asking]);
  const close = () => {
    dialog.current?.close();
    setAsking(false);
  };
  return (
    <Form method="post" action={props.action} ref={form} className="inline-form">
      {Object.entries(props.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        className={props.className ?? "button button-danger"}
        aria-label={props.name ?? (props.icon ? props.label : undefined)}
        onClick={(event) => {
          event.preventDefault();
          setAsking(true);
        }}
      >
        {props.icon ?? props.label}
      </button>
      {asking && (
        <dialog ref={dialog} className="dialog" aria-labelledby={titleId} onClose={close}>
          <h2 id={titleId}>Are you sure?</h2>
          <p>
            {props.warning ?? `Once deleted, you will not be able to recover this ${props.what}!`}
          </p>
          <div className="dialog-actions">
            <button type="button" className="button button-ghost" onClick={close}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-danger"
              onClick={() => {
                close();
                form.current?.requestSubmit();
              }}
            >
              {props.confirm ?? "OK"}
            </button>
          </div>
        </dialog>
      )}
    </Form>
  );
}
