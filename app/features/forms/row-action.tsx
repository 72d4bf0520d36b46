import { Form } from "react-router";

/** A list row's button: one form with its intent and the row's id. */
export function RowAction(props: {
  intent: string;
  id: string;
  label: string;
  /** The button's accessible name, naming its row. */
  name: string;
  danger?: boolean;
  busy: boolean;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={props.intent} />
      <input type="hidden" name="id" value={props.id} />
      <button
        type="submit"
        className={`button button-small${props.danger ? " button-danger" : ""}`}
        disabled={props.busy}
        aria-label={props.name}
      >
        {props.label}
      </button>
    </Form>
  );
}
