import { useEffect, useRef, useState } from "react";
import { imageFileError } from "../../../contract/content-rules.js";
import { useFilePreview } from "./form-state.js";

/**
 * A file input for one image, with a preview of the chosen file. A new choice is checked at once
 * (against `maxBytes`) and its verdict replaces the message of the last submit until the next one.
 */
export function ImageInput({
  label,
  error,
  maxBytes,
}: {
  label: string;
  error?: string | undefined;
  maxBytes: number;
}) {
  const [chosen, setChosen] = useState<File | undefined>();
  const preview = useFilePreview(chosen);
  // Set by a choice made after the form's last submit: what that choice gives, or no message.
  const [verdict, setVerdict] = useState<{ error: string | undefined } | undefined>();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const form = input.current?.form;
    if (!form) return;
    const submitted = () => {
      setVerdict(undefined);
    };
    form.addEventListener("submit", submitted);
    return () => {
      form.removeEventListener("submit", submitted);
    };
  }, []);
  const shown = verdict ? verdict.error : error;
  return (
    <div className="field">
      <label htmlFor="field-image">{label}</label>
      <input
        ref={input}
        id="field-image"
        name="image"
        type="file"
        accept=".jpg,.jpeg,.png,.gif,.jfif,image/jpeg,image/png,image/gif"
        aria-invalid={shown ? true : undefined}
        aria-describedby={shown ? "field-image-error" : undefined}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          setChosen(file);
          setVerdict({ error: imageFileError(file, maxBytes) });
        }}
      />
      {shown ? (
        <p id="field-image-error" className="field-error">
          {shown}
        </p>
      ) : null}
      {preview ? (
        <img src={preview} alt="Preview of the chosen image" className="image-preview" />
      ) : null}
    </div>
  );
}
