import { useEffect, useRef, type ReactNode } from "react";
import { Form, Link, useNavigation } from "react-router";
import type { CommentThread } from "../../../core/comments/threads.js";
import { dateTime } from "../../ui/format.js";
import { TextAreaField } from "../forms/field.js";
import { useClientValidation } from "../forms/form-state.js";
import type { Result } from "../posts/post-interactions.js";
import { CommentText } from "./comment-text.js";
import { authorPath, profilePath } from "../../../contract/page-paths.js";

/** Replies shown before a thread folds the rest under "Show N more". */
export const REPLIES_SHOWN = 3;

export type Comment = NonNullable<CommentThread["comment"]>;

interface Viewing {
  signedIn: boolean;
  result: Result;
  /**
   * What the viewer's own comment shows after its date (its edit and delete tools, SPEC.md 6:
   * only its author sees them); nothing on others'. A viewer's island (decision 021).
   */
  ownTools: (comment: Comment) => ReactNode;
  /** The Report menu on others' comments, none on the viewer's own: an island too. */
  reportMenu: (comment: Comment) => ReactNode;
}

/**
 * The reply form, opened in place by its summary (a details element: no JavaScript needed). A
 * reply to a reply joins the thread; the server addresses it "@name".
 */
function ReplyForm({ comment, result }: { comment: Comment; result: Result }) {
  const { errors, form: checks } = useClientValidation(
    () =>
      import("../../../contract/content.js").then((m) =>
        m.CommentCreateSchema.pick({ text: true }),
      ),
    undefined,
  );
  const busy = useNavigation().state === "submitting";
  const id = `reply-${comment._id}`;
  const details = useRef<HTMLDetailsElement>(null);
  const form = useRef<HTMLFormElement>(null);
  // A reply that went through folds the open reply forms again (each answer is a new object).
  useEffect(() => {
    if (result?.ok === true && result.intent === "reply" && details.current) {
      details.current.open = false;
      form.current?.reset();
    }
  }, [result]);
  return (
    <details className="reply-toggle" ref={details}>
      <summary>Reply</summary>
      <Form method="post" noValidate {...checks} className="form reply-form" ref={form}>
        <input type="hidden" name="intent" value="reply" />
        <input type="hidden" name="parentId" value={comment._id} />
        <TextAreaField
          label={`Reply to ${comment.userName}`}
          name="text"
          id={`${id}-text`}
          rows={2}
          error={errors.text}
        />
        <button type="submit" className="button button-small" disabled={busy}>
          Send reply
        </button>
      </Form>
    </details>
  );
}

function CommentItem({ comment, viewing }: { comment: Comment; viewing: Viewing }) {
  return (
    <article
      className="comment"
      id={`comment-${comment._id}`}
      aria-label={`Comment by ${comment.userName}`}
    >
      <div className="byline">
        <img
          src={comment.user.profilePhoto.url}
          alt=""
          width="28"
          height="28"
          className="avatar"
          loading="lazy"
        />
        {/* Members go to the profile, visitors to the public author page (as bylines do). */}
        <Link
          to={viewing.signedIn ? profilePath(comment.user._id) : authorPath(comment.user.username)}
          className="comment-author"
        >
          {comment.userName}
        </Link>
        <time dateTime={comment.createdAt}>{dateTime(comment.createdAt)}</time>
        {viewing.ownTools(comment)}
      </div>
      <p>
        <CommentText text={comment.text} />
      </p>
      {viewing.signedIn ? (
        <div className="comment-actions">
          <ReplyForm comment={comment} result={viewing.result} />
          {viewing.reportMenu(comment)}
        </div>
      ) : null}
    </article>
  );
}

function ReplyList({ replies, viewing }: { replies: Comment[]; viewing: Viewing }) {
  return (
    <ul className="reply-list">
      {replies.map((reply) => (
        <li key={reply._id}>
          <CommentItem comment={reply} viewing={viewing} />
        </li>
      ))}
    </ul>
  );
}

/**
 * A post's conversations: each first comment (or "This comment was deleted" where it was) and its
 * replies, the first three shown and the rest folded under "Show N more".
 */
export function CommentThreads(props: { threads: CommentThread[] } & Viewing) {
  const viewing: Viewing = props;
  return (
    <ul className="comment-list">
      {props.threads.map((thread) => {
        const shown = thread.replies.slice(0, REPLIES_SHOWN);
        const folded = thread.replies.slice(REPLIES_SHOWN);
        return (
          <li key={thread.id} className="comment-thread">
            {thread.comment ? (
              <CommentItem comment={thread.comment} viewing={viewing} />
            ) : (
              <p className="comment comment-deleted">This comment was deleted</p>
            )}
            {shown.length > 0 ? <ReplyList replies={shown} viewing={viewing} /> : null}
            {folded.length > 0 ? (
              <details className="more-replies">
                <summary>Show {folded.length} more</summary>
                <ReplyList replies={folded} viewing={viewing} />
              </details>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
