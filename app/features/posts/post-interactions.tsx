import { lazy, Suspense, useEffect, useState, type ReactNode } from "react";
import { Form, Link, useFetcher, useNavigation, useParams } from "react-router";
import { IMAGE_ALT_MAX, IMAGE_REPLACE_MAX_BYTES } from "../../../contract/limits.js";
import type { FieldErrors } from "../../../contract/validation.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import {
  EditIcon,
  FacebookIcon,
  HeartIcon,
  ShareIcon,
  TrashIcon,
  TwitterIcon,
} from "../../ui/icons.js";
import { DisclosureMenu } from "../../ui/disclosure-menu.js";
import { Modal } from "../../ui/modal.js";
import type { BodyEditorProps } from "../forms/body-editor.js";
import { useToast } from "../../ui/toasts.js";
import { Field, SelectField, TextAreaField } from "../forms/field.js";
import { ImageUploadForm } from "../forms/image-upload-form.js";
import { FormAlert } from "../forms/form-alert.js";
import { useClientValidation, type ActionResult } from "../forms/form-state.js";
import type { PostStatus } from "../../../contract/content.js";
import { PublishControls } from "./publish-controls.js";
import { NewsletterChoice, type NewsletterOffer } from "../newsletter/newsletter-choice.js";
import { postEditorPath, postNewsletterOfferPath } from "../../../contract/page-paths.js";

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

/** The like toggle: solid when the viewer likes the post. */
export function LikeButton({ liked }: { liked: boolean }) {
  return (
    <Form method="post" className="inline-form">
      <input type="hidden" name="intent" value="like" />
      <button
        type="submit"
        className={`like-button${liked ? " liked" : ""}`}
        aria-pressed={liked}
        aria-label={liked ? "Unlike" : "Like"}
      >
        <HeartIcon filled={liked} />
      </button>
    </Form>
  );
}

/**
 * The like toggle (`toggle`, a member's; a plain heart for visitors), the count, and who liked: on
 * hover, or in a modal.
 */
export function Likes(props: { likes: Liker[]; count: number; toggle: ReactNode }) {
  const [open, setOpen] = useState(false);
  const label = `${String(props.count)} ${props.count === 1 ? "like" : "likes"}`;
  return (
    <div className="likes-bar">
      {props.toggle ?? <HeartIcon />}
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
        // Not useId's: the likes are a live island of the post page (decision 029).
        titleId="likes-title"
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
  const toast = useToast();
  // Copying needs a script: the entry appears once the page has one.
  const [canCopy, setCanCopy] = useState(false);
  useEffect(() => {
    setCanCopy(typeof navigator.clipboard !== "undefined");
  }, []);
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
        {canCopy ? (
          <li>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                navigator.clipboard.writeText(url).then(
                  () => {
                    toast("success", "Link copied");
                  },
                  () => {
                    toast("error", "The link could not be copied");
                  },
                );
              }}
            >
              Copy link
            </button>
          </li>
        ) : null}
      </ul>
    </details>
  );
}

// Loaded when its author opens the edit form: readers of the post never download the editor.
const BodyEditor = lazy(async () => ({
  default: (await import("../forms/body-editor.js")).BodyEditor,
}));

function LazyBodyEditor(props: BodyEditorProps) {
  // Until the editor arrives the form still holds the body, read-only, so a quick submit keeps it.
  const fallback = (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        name={props.name}
        rows={props.rows}
        defaultValue={props.defaultValue}
        readOnly
        aria-busy="true"
      />
      <p className="muted">Loading the editor…</p>
    </div>
  );
  return (
    <Suspense fallback={fallback}>
      <BodyEditor {...props} />
    </Suspense>
  );
}

export function CommentForm({ result }: { result: Result }) {
  const { errors, form } = useClientValidation(
    () =>
      import("../../../contract/content.js").then((m) =>
        m.CommentCreateSchema.pick({ text: true }),
      ),
    errorsFor(result, "comment"),
  );
  const busy = useNavigation().state === "submitting";
  const done = result?.ok === true && result.intent === "comment";
  return (
    <Form
      method="post"
      noValidate
      {...form}
      className="form comment-form"
      key={done ? "sent" : "writing"}
    >
      <input type="hidden" name="intent" value="comment" />
      <FormAlert result={result?.intent === "comment" ? result : undefined} />
      <TextAreaField
        label="Your comment"
        name="text"
        id="field-text"
        rows={3}
        error={errors.text}
      />
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
  const { errors, form } = useClientValidation(
    () => import("../../../contract/content.js").then((m) => m.CommentUpdateSchema),
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
      <Modal title="Edit Comment" titleId={`${intent}-title`} open={open} onClose={close}>
        <Form method="post" noValidate {...form} className="form" id={intent}>
          <input type="hidden" name="intent" value="edit-comment" />
          <input type="hidden" name="commentId" value={props.commentId} />
          <TextAreaField
            label="Comment"
            name="text"
            id={`${intent}-text`}
            rows={3}
            defaultValue={props.text}
            error={errors.text}
          />
          <button type="submit" className="button">
            Edit Comment
          </button>
        </Form>
      </Modal>
    </div>
  );
}

export function OwnerTools(props: {
  post: {
    title: string;
    category: string;
    description: string;
    imageAlt: string | null;
    status: PostStatus;
    publishAt?: string | null | undefined;
    /** Until it is out: whether publishing mails it (decision 028). */
    newsletter?: "send" | "none" | undefined;
  };
  categories: { _id: string; title: string }[];
  result: Result;
  /** More of the owner's links beside the editor's (the post's stats). */
  children?: ReactNode;
}) {
  const [editing, setEditing] = useState(false);
  // The post page's own id: the editor keeps this post's draft apart and previews in its format.
  const { id: postId } = useParams();
  // How many it would be mailed to, read when the editor opens (the page stays a reader's cost).
  const offer = useFetcher<NewsletterOffer>();
  const unpublished = props.post.status !== "published";
  const { load } = offer;
  useEffect(() => {
    if (editing && unpublished && postId) void load(postNewsletterOfferPath(postId));
  }, [editing, unpublished, postId, load]);
  const close = () => {
    setEditing(false);
  };
  const { errors, form } = useClientValidation(
    () => import("../../../contract/content.js").then((m) => m.PostUpdateSchema),
    errorsFor(props.result, "edit-post"),
  );
  useCloseOnSuccess(props.result, "edit-post", close);
  const categories = props.categories.some((c) => c.title === props.post.category)
    ? props.categories
    : [{ _id: "current", title: props.post.category }, ...props.categories];
  return (
    <div className="owner-tools">
      {/* One Edit, the full editor (issue 50); a draft also gets its Publish. The rest (SPEC's
          quick edit and image upload among them) waits in "More". */}
      <Link to={postEditorPath(postId ?? "")} className="button button-small">
        <EditIcon /> Edit
      </Link>
      {unpublished ? <StatusButton intent="publish" label="Publish" /> : null}
      <DisclosureMenu className="owner-menu" label="More">
        <button
          type="button"
          className="button button-small button-ghost"
          onClick={() => {
            setEditing(true);
          }}
        >
          Edit Post
        </button>
        <ImageUploadForm
          intent="post-image"
          inputId="field-post-image"
          chooseLabel="Choose a new image"
          maxBytes={IMAGE_REPLACE_MAX_BYTES}
          result={props.result}
        />
        {props.children}
        {props.post.status === "published" ? (
          <StatusButton intent="unpublish" label="Unpublish" />
        ) : null}
        <ConfirmDelete
          what="post"
          label="Delete Post"
          fields={{ intent: "delete-post" }}
          className="button button-small button-danger"
        />
      </DisclosureMenu>
      <Modal title="Update Post" titleId="update-post-title" open={editing} onClose={close}>
        <Form method="post" noValidate {...form} className="form">
          <input type="hidden" name="intent" value="edit-post" />
          <p className="muted">
            The cover, tags, search-engine fields and earlier versions are in the{" "}
            <Link to={postEditorPath(postId ?? "")}>full editor</Link>.
          </p>
          <Field label="Title" name="title" defaultValue={props.post.title} error={errors.title} />
          <Field
            label="Alt text for the image (optional)"
            name="imageAlt"
            id="field-edit-image-alt"
            defaultValue={props.post.imageAlt ?? ""}
            maxLength={IMAGE_ALT_MAX}
            error={errors.imageAlt}
          />
          <SelectField
            label="Category"
            name="category"
            id="field-edit-category"
            defaultValue={props.post.category}
            error={errors.category}
          >
            {categories.map((category) => (
              <option key={category._id} value={category.title}>
                {category.title}
              </option>
            ))}
          </SelectField>
          <LazyBodyEditor
            label="Description"
            name="description"
            id="field-edit-description"
            rows={8}
            defaultValue={props.post.description}
            error={errors.description}
            postId={postId}
            saved={props.result?.ok === true && props.result.intent === "edit-post"}
          />
          {props.post.status === "published" ? (
            <button type="submit" className="button">
              Update Post
            </button>
          ) : (
            <PublishControls
              choices={["draft", "scheduled", "published"]}
              busy={undefined}
              publishAt={props.post.publishAt}
              error={errors.publishAt}
              idPrefix="field-edit"
            >
              <NewsletterChoice
                idPrefix="field-edit"
                offer={{
                  audience: offer.data?.audience,
                  choice: props.post.newsletter ?? "send",
                  sentAt: offer.data?.sentAt,
                }}
              />
            </PublishControls>
          )}
        </Form>
      </Modal>
    </div>
  );
}

/** Publish or Unpublish on the post's page: one form, its intent. */
function StatusButton(props: { intent: "publish" | "unpublish"; label: string }) {
  return (
    <Form method="post" className="inline-form">
      <input type="hidden" name="intent" value={props.intent} />
      <button type="submit" className="button button-small button-ghost">
        {props.label}
      </button>
    </Form>
  );
}
