import { useState } from "react";
import { Form, useNavigation } from "react-router";
import { imageFileError } from "../../../contract/content-rules.js";
import { ImageIcon } from "../../ui/icons.js";
import { useFilePreview, useSingleSubmit, type ActionResult } from "./form-state.js";

type Result = (ActionResult & { intent?: string | undefined }) | undefined;

/**
 * Choose an image and upload it (a new post image, a profile photo): the chosen file is named and
 * previewed and checked against the form's size limit at once; the server's refusal shows under it
 * until another file is chosen. Upload is off while the upload runs.
 */
export function ImageUploadForm(props: {
  intent: string;
  inputId: string;
  chooseLabel: string;
  maxBytes: number;
  result: Result;
}) {
  const [error, setError] = useState<string | undefined>();
  const [chosen, setChosen] = useState<File | undefined>();
  const preview = useFilePreview(chosen);
  // The answer that was shown when another file was chosen: stale from then on.
  const [staleResult, setStaleResult] = useState<Result>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === props.intent;
  const once = useSingleSubmit(busy);
  const mine =
    props.result?.intent === props.intent && !props.result.ok && props.result !== staleResult
      ? props.result
      : undefined;
  const shown = error ?? mine?.errors?.image ?? mine?.message;
  const errorId = `${props.inputId}-error`;
  return (
    <Form
      method="post"
      encType="multipart/form-data"
      noValidate
      className="image-upload"
      aria-busy={busy}
      onSubmit={(event) => {
        if (once.pending()) {
          event.preventDefault();
          return;
        }
        const file = new FormData(event.currentTarget).get("image");
        const problem = imageFileError(file instanceof File ? file : undefined, props.maxBytes);
        setError(problem);
        if (problem) event.preventDefault();
        else once.start();
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
        aria-invalid={shown ? true : undefined}
        aria-describedby={shown ? errorId : undefined}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          setChosen(file);
          setError(imageFileError(file, props.maxBytes));
          setStaleResult(props.result);
        }}
      />
      {chosen ? (
        <span className="chosen-file">
          {preview ? <img src={preview} alt="" width="40" height="40" /> : null}
          <span>{chosen.name}</span>
        </span>
      ) : null}
      <button type="submit" className="button button-small" disabled={busy}>
        {busy ? "Uploading…" : "Upload"}
      </button>
      {shown ? (
        <p id={errorId} className="field-error" role="alert">
          {shown}
        </p>
      ) : null}
    </Form>
  );
}
