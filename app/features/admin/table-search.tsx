import { useId } from "react";
import { Form, Link } from "react-router";

/**
 * A dashboard table's search: a plain GET form (`?q=`), so it works without JavaScript, and a new
 * search starts again at the first page.
 */
export function TableSearch(props: {
  /** The table's page, which the form loads with `?q=`. */
  path: string;
  label: string;
  placeholder: string;
  q: string;
  maxLength: number;
}) {
  const id = useId();
  return (
    <Form method="get" action={props.path} role="search" className="table-search">
      <div className="field">
        <label htmlFor={id}>{props.label}</label>
        {/* Keyed by the search, so the box shows the one on screen after Back or Clear. */}
        <input
          key={props.q}
          id={id}
          type="search"
          name="q"
          defaultValue={props.q}
          placeholder={props.placeholder}
          maxLength={props.maxLength}
        />
      </div>
      <button type="submit" className="button button-small">
        Search
      </button>
      {props.q ? (
        <Link to={props.path} className="button button-small button-ghost">
          Clear
        </Link>
      ) : null}
    </Form>
  );
}
