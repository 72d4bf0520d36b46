import {
  useEffect,
  useRef,
  useState,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
import { useSaidInToast } from "../../ui/toasts.js";

interface Labelled {
  label: string;
  name: string;
  error?: string | undefined;
  /** Defaults to `field-{name}`; set it where one page has two forms with the same field. */
  id?: string | undefined;
  /** What the field takes, shown from the start (a password's rules). */
  hint?: string | undefined;
}

/**
 * Whether the field was changed since its form was last sent: its message then no longer speaks
 * about what it holds, and goes until the next submit says again.
 */
function useEditedSinceSubmit() {
  const field = useRef<HTMLDivElement>(null);
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    const form = field.current?.closest("form");
    if (!form) return;
    const sent = () => {
      setEdited(false);
    };
    form.addEventListener("submit", sent);
    return () => {
      form.removeEventListener("submit", sent);
    };
  }, []);
  return {
    ref: field,
    edited,
    onChange: () => {
      setEdited(true);
    },
  };
}

/** The label, the control and its message, tied together for screen readers. */
function FieldShell(props: Labelled & { control: (aria: ControlAria) => ReactNode }) {
  const id = props.id ?? `field-${props.name}`;
  const { ref, edited, onChange } = useEditedSinceSubmit();
  const error = edited ? undefined : props.error;
  // The server's refusal on screen as a toast: the field is marked and its words wait out of
  // sight (still read out with it) until the toast has gone.
  const toasted = useSaidInToast(error);
  const described = [props.hint ? `${id}-hint` : "", error ? `${id}-error` : ""]
    .filter(Boolean)
    .join(" ");
  const aria: ControlAria = {
    id,
    name: props.name,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": described === "" ? undefined : described,
  };
  return (
    <div className="field" ref={ref} onChange={props.error ? onChange : undefined}>
      <label htmlFor={id}>{props.label}</label>
      {props.control(aria)}
      {props.hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className={toasted ? "visually-hidden" : "field-error"}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

interface ControlAria {
  id: string;
  name: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/** A field's own props apart from what goes on to its control. */
function labelledApart<T extends Labelled>(props: T): [Labelled, Omit<T, keyof Labelled>] {
  const { label, name, error, id, hint, ...control } = props;
  return [{ label, name, error, id, hint }, control];
}

export function Field(props: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  const [labelled, input] = labelledApart(props);
  return <FieldShell {...labelled} control={(aria) => <input {...aria} {...input} />} />;
}

export function TextAreaField(props: Labelled & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const [labelled, textarea] = labelledApart(props);
  return <FieldShell {...labelled} control={(aria) => <textarea {...aria} {...textarea} />} />;
}

export function SelectField(props: Labelled & SelectHTMLAttributes<HTMLSelectElement>) {
  const [labelled, { children, ...select }] = labelledApart(props);
  return (
    <FieldShell
      {...labelled}
      control={(aria) => (
        <select {...aria} {...select}>
          {children}
        </select>
      )}
    />
  );
}
