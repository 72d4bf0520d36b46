import { useEffect, useState } from "react";
import { PROFILE_PASSWORD_MIN } from "../../../contract/limits.js";
import { Form, useNavigation } from "react-router";
import { PROFILE_PHOTO_MAX_BYTES, SOCIAL_LINKS_MAX } from "../../../contract/limits.js";
import { profileUpdateSchema, SOCIAL_NETWORKS } from "../../../contract/users.js";
import { parseWith, type FieldErrors } from "../../../contract/validation.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { EditIcon, TrashIcon } from "../../ui/icons.js";
import { Modal } from "../../ui/modal.js";
import { Field, SelectField, TextAreaField } from "../forms/field.js";
import { ImageUploadForm } from "../forms/image-upload-form.js";
import type { ActionResult } from "../forms/form-state.js";
import { profileValues } from "./profile-form.js";

type Result = (ActionResult & { intent?: string | undefined }) | undefined;

interface Profile {
  _id: string;
  username: string;
  email?: string;
  bio: string;
  socialMedia: { name: string; url: string }[];
}

export function PhotoUpload({ result }: { result: Result }) {
  return (
    <ImageUploadForm
      intent="photo"
      inputId="field-photo"
      chooseLabel="Choose a photo"
      maxBytes={PROFILE_PHOTO_MAX_BYTES}
      result={result}
    />
  );
}

let nextRow = 0;
const withIds = (links: { name: string; url: string }[]) =>
  links.map((link) => ({ ...link, id: (nextRow += 1) }));

/** The edit-profile modal: username, e-mail, bio, an optional new password and up to five links. */
export function EditProfile({ profile, result }: { profile: Profile; result: Result }) {
  const [open, setOpen] = useState(false);
  const [links, setLinks] = useState(() => withIds(profile.socialMedia));
  const [clientErrors, setClientErrors] = useState<FieldErrors | undefined>();
  const busy = useNavigation().state === "submitting";
  const serverErrors = result?.intent === "edit-profile" && !result.ok ? result.errors : undefined;
  const errors: FieldErrors = clientErrors ?? serverErrors ?? {};
  useEffect(() => {
    if (result?.ok && result.intent === "edit-profile") setOpen(false);
  }, [result]);
  const close = () => {
    setOpen(false);
  };
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          setLinks(withIds(profile.socialMedia));
          setClientErrors(undefined);
          setOpen(true);
        }}
      >
        <EditIcon /> Update Profile
      </button>
      <Modal title="Update Your Profile" open={open} onClose={close}>
        <Form
          method="post"
          noValidate
          className="form"
          onSubmit={(event) => {
            const parsed = parseWith(
              profileUpdateSchema(profile.username),
              profileValues(new FormData(event.currentTarget).entries()),
            );
            setClientErrors(parsed.ok ? undefined : parsed.errors);
            if (!parsed.ok) event.preventDefault();
          }}
        >
          <input type="hidden" name="intent" value="edit-profile" />
          <Field
            label="Username"
            name="username"
            defaultValue={profile.username}
            error={errors.username}
          />
          <Field
            label="Email"
            name="email"
            type="email"
            defaultValue={profile.email ?? ""}
            error={errors.email}
          />
          <TextAreaField
            label="Bio"
            name="bio"
            rows={3}
            defaultValue={profile.bio}
            error={errors.bio}
          />
          <Field
            label="New Password (optional)"
            name="password"
            type="password"
            autoComplete="new-password"
            error={errors.password}
            hint={`At least ${String(PROFILE_PASSWORD_MIN)} characters; leave it empty to keep yours`}
          />
          <Field
            label="Current Password (to change e-mail or password)"
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            error={errors.currentPassword}
          />
          <fieldset className="social-editor">
            <legend>Social links</legend>
            {links.map((link, index) => (
              <div className="social-row" key={link.id}>
                <SelectField
                  label={`Network ${String(index + 1)}`}
                  name={`socialMedia.${String(index)}.name`}
                  id={`social-${String(index)}-name`}
                  defaultValue={link.name}
                  error={errors[`socialMedia.${String(index)}.name`]}
                >
                  <option value="">Choose</option>
                  {SOCIAL_NETWORKS.map((network) => (
                    <option key={network} value={network}>
                      {network}
                    </option>
                  ))}
                </SelectField>
                <Field
                  label={`Link ${String(index + 1)}`}
                  name={`socialMedia.${String(index)}.url`}
                  defaultValue={link.url}
                  error={errors[`socialMedia.${String(index)}.url`]}
                />
                <button
                  type="button"
                  className="icon-button small danger"
                  aria-label={`Remove link ${String(index + 1)}`}
                  onClick={() => {
                    setLinks((current) => current.filter((row) => row.id !== link.id));
                  }}
                >
                  <TrashIcon />
                </button>
              </div>
            ))}
            {errors.socialMedia ? <p className="field-error">{errors.socialMedia}</p> : null}
            <button
              type="button"
              className="button button-ghost button-small"
              disabled={links.length >= SOCIAL_LINKS_MAX}
              onClick={() => {
                setLinks((current) => [...current, ...withIds([{ name: "", url: "" }])]);
              }}
            >
              Add Social Link
            </button>
          </fieldset>
          <button type="submit" className="button" disabled={busy}>
            Update Profile
          </button>
        </Form>
      </Modal>
    </>
  );
}

export function DeleteProfile() {
  // SPEC.md 6: the profile-delete dialog words it as "comment", as the original did.
  return (
    <ConfirmDelete
      what="comment"
      label="Delete Your Account"
      fields={{ intent: "delete-profile" }}
      className="button button-small button-danger"
    />
  );
}
