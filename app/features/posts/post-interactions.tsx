import { useEffect, useState } from "react";
import { Form, useNavigation } from "react-router";
import {
  CommentCreateSchema,
  CommentUpdateSchema,
  imageFileError,
  PostUpdateSchema,
} from "../../../contract/content.js";
import { IMAGE_REPLACE_MAX_BYTES } from "../../../contract/limits.js";
import type { FieldErrors } from "../../../contract/validation.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import {
  EditIcon,
  FacebookIcon,
  HeartIcon,
  ImageIcon,
  ShareIcon,
  TrashIcon,
  TwitterIcon,
} from "../../ui/icons.js";
import { Modal } from "../../ui/modal.js";
import { Field } from "../forms/field.js";
import { FormAlert } from "../forms/form-alert.js";
import { useClientValidation, type ActionResult } from "../forms/form-state.js";

export type Result = (ActionResult & { intent?: string | undefined }) | undefined;

interface Liker {
  _id: string;
  username: string;
  profilePhoto: { url: string };
}

const errorsFor = (result: Result, intent: string): FieldErrors | undefined =>
  result?.intent === intent ? result.errors : undefined;

/** Closes a modal once its own form has succeeded. */
function useCloseOnSuccess(result: Result, intent: string, close: () => void) {
  useEffect(() => {
    if (result?.ok && result.intent === intent) close();
  }, [result, intent, close]);
}

function LikerList({ likes }: { likes: Liker[] }) {
  return (
    <ul className="likers">
      {likes.map((user) => (
        <li key={user._id}>
          <img
            src={user.profilePhoto.url}
            alt=""
            width="24"
            height="24"
            className="avatar"
            loading="lazy"
          />
          {user.username || "User Not Found"}
        </li>
      ))}
    </ul>
  );
}

/** The like toggle (solid when the viewer likes it), the count, and who liked: on hover, or in a modal. */
export function Likes(props: { likes: Liker[]; count: number; liked: boolean; signedIn: boolean }) {
  const [open, setOpen] = useState(false);
  const label = `${String(props.count)} ${props.count === 1 ? "like" : "likes"}`;
  return (
    <div className="likes-bar">
      {props.signedIn ? (
        <Form method="post" className="inline-form">
          <input type="hidden" name="intent" value="like" />
          <button
            type="submit"
            className={`like-button${props.liked ? " liked" : ""}`}
            aria-pressed={props.liked}
            aria-label={props.liked ? "Unlike" : "Like"}
          >
            <HeartIcon filled={props.liked} />
          </button>
        </Form>
      ) : (
        <HeartIcon />
      )}
      <div className="likers-hover">
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setOpen(true);
          }}
          disabled={props.count === 0}
        >
          {label}
        </button>
        {props.likes.length > 0 ? (
          <div className="likers-popup" aria-hidden="true">
            <LikerList likes={props.likes} />
          </div>
        ) : null}
      </div>
      <Modal
        title="Likes"
        open={open}
        onClose={() => {
          setOpen(false);
        }}
      >
        <LikerList likes={props.likes} />
      </Modal>
    </div>
  );
}

export function ShareMenu({ url, title }: { url: string; title: string }) {
  const target = encodeURIComponent(url);
  return (
    <details className="share-menu">
      <summary>
        <ShareIcon /> Share
      </summary>
      <ul className="dropdown-menu">
        <li>
          <a
            href={`https://www.facebook.com/sharer/sharer.php?u=${target}`}
            target="_blank"
            rel="noopener noreferrer"
          >
            <FacebookIcon /> Facebook
          </a>
        </li>
        <li>
          <a
            href={`https://twitter.com/intent/tweet?url=${target}&text=${encodeURIComponent(title)}`}
            target="_blank"
            rel="noopener noreferrer"
          >
            <TwitterIcon /> Twitter
          </a>
        </li>
      </ul>
    </details>
  );
}

const CommentTextSchema = CommentCreateSchema.pick({ text: true });

export function CommentForm({ result }: { result: Result }) {
  const { errors, onSubmit } = useClientValidation(CommentTextSchema, errorsFor(result, "comment"));
  const busy = useNavigation().state === "submitting";
  const done = result?.ok === true && result.intent === "comment";
  return (
    <Form
      method="post"
      noValidate
      onSubmit={onSubmit}
      className="form comment-form"
      key={done ? "sent" : "writing"}
    >
      <input type="hidden" name="intent" value="comment" />
      <FormAlert result={result?.intent === "comment" ? result : undefined} />
      <div className="field">
        <label htmlFor="field-text">Your comment</label>
        <textarea
          id="field-text"
          name="text"
          rows={3}
          aria-invalid={errors.text ? true : undefined}
          aria-describedby={errors.text ? "field-text-error" : undefined}
        />
        {errors.text ? (
          <p id="field-text-error" className="field-error">
            {errors.text}
          </p>
        ) : null}
      </div>
      <button type="submit" className="button" disabled={busy}>
        Comment
      </button>
    </Form>
  );
}

export function CommentTools(props: { commentId: string; text: string; result: Result }) {
  const [open, setOpen] = useState(false);
  const close = () => {
    setOpen(false);
  };
  const intent = `edit-comment:${props.commentId}`;
  const { errors, onSubmit } = useClientValidation(
    CommentUpdateSchema,
    props.result?.intent === "edit-comment" && !props.result.ok ? props.result.errors : undefined,
  );
  useCloseOnSuccess(props.result, "edit-comment", close);
  return (
    <div className="comment-tools">
      <button
        type="button"
        className="icon-button small"
        aria-label="Edit comment"
        onClick={() => {
          setOpen(true);
        }}
      >
        <EditIcon />
      </button>
      <ConfirmDelete
        what="comment"
        label="Delete comment"
        fields={{ intent: "delete-comment", commentId: props.commentId }}
        className="icon-button small danger"
        icon={<TrashIcon />}
      />
      <Modal title="Edit Comment" open={open} onClose={close}>
        <Form method="post" noValidate onSubmit={onSubmit} className="form" id={intent}>
          <input type="hidden" name="intent" value="edit-comment" />
          <input type="hidden" name="commentId" value={props.commentId} />
          <div className="field">
            <label htmlFor={`${intent}-text`}>Comment</label>
            <textarea
              id={`${intent}-text`}
              name="text"
              rows={3}
              defaultValue={props.text}
              aria-invalid={errors.text ? true : undefined}
            />
            {errors.text ? <p className="field-error">{errors.text}</p> : null}
          </div>
          <button type="submit" className="button">
            Edit Comment
          </button>
        </Form>
      </Modal>
    </div>
  );
}

export function OwnerTools(props: {
  post: { title: string; category: string; description: string };
  categories: { _id: string; title: string }[];
  result: Result;
}) {
  const [editing, setEditing] = useState(false);
  const [imageError, setImageError] = useState<string | undefined>();
  const close = () => {
    setEditing(false);
  };
  const { errors, onSubmit } = useClientValidation(
    PostUpdateSchema,
    errorsFor(props.result, "edit-post"),
  );
  useCloseOnSuccess(props.result, "edit-post", close);
  const serverImageError =
    errorsFor(props.result, "post-image")?.image ??
    (props.result?.intent === "post-image" && !props.result.ok ? props.result.message : undefined);
  const categories = props.categories.some((c) => c.title === props.post.category)
    ? props.categories
    : [{ _id: "current", title: props.post.category }, ...props.categories];
  return (
    <div className="owner-tools">
      <Form
        method="post"
        encType="multipart/form-data"
        className="image-upload"
        noValidate
        onSubmit={(event) => {
          const file = new FormData(event.currentTarget).get("image");
          const problem = imageFileError(
            file instanceof File ? file : undefined,
            IMAGE_REPLACE_MAX_BYTES,
          );
          setImageError(problem);
          if (problem) event.preventDefault();
        }}
      >
        <input type="hidden" name="intent" value="post-image" />
        <label htmlFor="field-post-image" className="button button-ghost button-small">
          <ImageIcon /> Choose a new image
        </label>
        <input
          id="field-post-image"
          name="image"
          type="file"
          accept=".jpg,.jpeg,.png,.gif,.jfif"
          className="visually-hidden-file"
        />
        <button type="submit" className="button button-small">
          Upload
        </button>
        {(imageError ?? serverImageError) ? (
          <p className="field-error">{imageError ?? serverImageError}</p>
        ) : null}
      </Form>
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          setEditing(true);
        }}
      >
        <EditIcon /> Edit Post
      </button>
      <ConfirmDelete
        what="post"
        label="Delete Post"
        fields={{ intent: "delete-post" }}
        className="button button-small button-danger"
      />
      <Modal title="Update Post" open={editing} onClose={close}>
        <Form method="post" noValidate onSubmit={onSubmit} className="form">
          <input type="hidden" name="intent" value="edit-post" />
          <Field label="Title" name="title" defaultValue={props.post.title} error={errors.title} />
          <div className="field">
            <label htmlFor="field-edit-category">Category</label>
            <select id="field-edit-category" name="category" defaultValue={props.post.category}>
              {categories.map((category) => (
                <option key={category._id} value={category.title}>
                  {category.title}
                </option>
              ))}
            </select>
            {errors.category ? <p className="field-error">{errors.category}</p> : null}
          </div>
          <div className="field">
            <label htmlFor="field-edit-description">Description</label>
            <textarea
              id="field-edit-description"
              name="description"
              rows={8}
              defaultValue={props.post.description}
            />
            {errors.description ? <p className="field-error">{errors.description}</p> : null}
          </div>
          <button type="submit" className="button">
            Update Post
          </button>
        </Form>
      </Modal>
    </div>
  );
}
