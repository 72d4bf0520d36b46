import type {
  InputHTMLAttributes,
  ReactNode,
  SelectHTMLAttributes,
  TextareaHTMLAttributes,
} from "react";

interface Labelled {
  label: string;
  name: string;
  error?: string | undefined;
  /** Defaults to `field-{name}`; set it where one page has two forms with the same field. */
  id?: string | undefined;
}

/** The label, the control and its message, tied together for screen readers. */
function FieldShell(props: Labelled & { control: (aria: ControlAria) => ReactNode }) {
  const id = props.id ?? `field-${props.name}`;
  const aria: ControlAria = {
    id,
    name: props.name,
    "aria-invalid": props.error ? true : undefined,
    "aria-describedby": props.error ? `${id}-error` : undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.control(aria)}
      {props.error ? (
        <p id={`${id}-error`} className="field-error">
          {props.error}
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

export function Field({
  label,
  name,
  error,
  id,
  ...input
}: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <FieldShell
      label={label}
      name={name}
      error={error}
      id={id}
      control={(aria) => <input {...aria} {...input} />}
    />
  );
}

export function TextAreaField({
  label,
  name,
  error,
  id,
  ...textarea
}: Labelled & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <FieldShell
      label={label}
      name={name}
      error={error}
      id={id}
      control={(aria) => <textarea {...aria} {...textarea} />}
    />
  );
}

export function SelectField({
  label,
  name,
  error,
  id,
  children,
  ...select
}: Labelled & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <FieldShell
      label={label}
      name={name}
      error={error}
      id={id}
      control={(aria) => (
        <select {...aria} {...select}>
          {children}
        </select>
      )}
    />
  );
}
