import { CopyButton } from "../../ui/copy-button.js";

/**
 * A token or signing secret shown once after it is made (decision 025): one line that scrolls
 * in its box rather than breaking (a secret broken over lines is easily copied in part), and a
 * button that copies it whole.
 */
export function NewSecret(props: {
  /** What to do now, e.g. "Copy your new token now." */
  title: string;
  value: string;
  /** The copy button's accessible name, e.g. "Copy the token". */
  copyName: string;
}) {
  return (
    <div className="new-secret" role="status">
      <p>
        <strong>{props.title}</strong> It is shown only this once.
      </p>
      <div className="secret-line">
        {/* Focusable so a keyboard can scroll a secret longer than its box. */}
        <code className="secret-value" tabIndex={0}>
          {props.value}
        </code>
        <CopyButton text={props.value} name={props.copyName} />
      </div>
    </div>
  );
}
