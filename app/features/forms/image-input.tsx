import { useEffect, useState } from "react";

/** A file input for one image, with a preview of the chosen file. */
export function ImageInput({ label, error }: { label: string; error?: string | undefined }) {
  const [preview, setPreview] = useState<string | undefined>();
  useEffect(
    () => () => {
      if (preview) URL.revokeObjectURL(preview);
    },
    [preview],
  );
  return (
    <div className="field">
      <label htmlFor="field-image">{label}</label>
      <input
        id="field-image"
        name="image"
        type="file"
        accept=".jpg,.jpeg,.png,.gif,.jfif,image/jpeg,image/png,image/gif"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "field-image-error" : undefined}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          setPreview(file ? URL.createObjectURL(file) : undefined);
        }}
      />
      {error ? (
        <p id="field-image-error" className="field-error">
          {error}
        </p>
      ) : null}
      {preview ? (
        <img src={preview} alt="Preview of the chosen image" className="image-preview" />
      ) : null}
    </div>
  );
}
