import { useState } from "react";
import { Form } from "react-router";
import { imageFileError } from "../../../contract/content.js";
import { ImageIcon } from "../../ui/icons.js";
import type { ActionResult } from "./form-state.js";

/**
 * Choose an image and upload it (a new post image, a profile photo): checked in the browser against
 * the form's size limit first, the server's refusal shown under it.
 */
export function ImageUploadForm(props: {
  intent: string;
  inputId: string;
  chooseLabel: string;
  maxBytes: number;
  result: (ActionResult & { intent?: string | undefined }) | undefined;
}) {
  const [error, setError] = useState<string | undefined>();
  const mine = props.result?.intent === props.intent && !props.result.ok ? props.result : undefined;
  const shown = error ?? mine?.errors?.image ?? mine?.message;
  return (
    <Form
      method="post"
      encType="multipart/form-data"
      noValidate
      className="image-upload"
      onSubmit={(event) => {
        const file = new FormData(event.currentTarget).get("image");
        const problem = imageFileError(file instanceof File ? file : undefined, props.maxBytes);
        setError(problem);
        if (problem) event.preventDefault();
      }}
    >
      <input type="hidden" name="intent" value={props.intent} />
      <label htmlFor={props.inputId} className="button button-ghost button-small">
        <ImageIcon /> {props.chooseLabel}
      </label>
      <input
        id={props.inputId}
        name="image"
        type="file"
        accept=".jpg,.jpeg,.png,.gif,.jfif"
        className="visually-hidden-file"
      />
      <button type="submit" className="button button-small">
        Upload
      </button>
      {shown ? <p className="field-error">{shown}</p> : null}
    </Form>
  );
}
