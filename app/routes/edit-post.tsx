import { useRef } from "react";
import { data, Form, Link, useActionData, useNavigation } from "react-router";
import { IMAGE_ALT_MAX, IMAGE_REPLACE_MAX_BYTES } from "../../contract/limits.js";
import { listCategories } from "../../core/categories/categories-service.js";
import { canEditPost } from "../../core/posts/policies.js";
import { tagsOf } from "../../core/posts/presenters.js";
import {
  findPost,
  listTags,
  replacePostImage,
  updatePost,
} from "../../core/posts/posts-service.js";
import { imageUrl } from "../../core/media/images.js";
import { listSeriesOf } from "../../core/series/series-service.js";
import { restoreRevision, revisionOf, revisionsOf } from "../../core/posts/revisions.js";
import { PostPartialUpdateSchema, PostPublishingSchema } from "../../contract/content.js";
import type { FieldErrors } from "../../contract/validation.js";
import { validate } from "../../core/shared/validate.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { attempt, fail, failure, imageForm, limited } from "../features/forms/action.server.js";
import { BodyEditor } from "../features/forms/body-editor.js";
import { Field, SelectField } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { ImageInput } from "../features/forms/image-input.js";
import { useAutosave } from "../features/posts/autosave.js";
import { AutosaveStatus } from "../features/posts/autosave-status.js";
import { LocalTime, PublishControls, STATUS_LABELS } from "../features/posts/publish-controls.js";
import { publishingFields } from "../features/posts/publishing.server.js";
import publishingStyles from "../features/posts/publishing.css?url";
import { revisionDiff, type DiffPart } from "../features/posts/revision-diff.server.js";
import { WritingFields } from "../features/posts/writing-fields.js";
import { seriesChoices } from "../features/series/series-field.js";
import { pageMeta } from "../meta.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/edit-post";
import { postEditorPath, postPath } from "../../contract/page-paths.js";
import { NewsletterChoice } from "../features/newsletter/newsletter-choice.js";
import { newsletterOffer } from "../../core/newsletter/audience.js";
import { sendTestNewsletter } from "../../core/newsletter/sending.js";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: publishingStyles }];

/** The post its author edits here, or no page at all for anyone else (as for a draft). */
async function ownPost(context: Route.LoaderArgs["context"], id: string) {
  const viewer = requireViewer(context);
  const post = await findPost(context.deps, id);
  if (!post || !canEditPost(viewer.actor, post)) throw data(null, { status: 404 });
  return { viewer, post };
}

/** The full editor for an existing post (issue 32, decision 022): every field in one place. */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { post } = await ownPost(context, params.id);
  const { deps } = context;
  const asked = new URL(request.url).searchParams.get("revision");
  const [categories, tags, revisions, revision, offer, series] = await Promise.all([
    listCategories(deps),
    listTags(deps),
    revisionsOf(deps, post.id, {}),
    asked ? revisionOf(deps, post.id, asked).catch(() => undefined) : undefined,
    newsletterOffer(deps, post),
    // The writer's series (an admin editing another's post chooses among the writer's).
    listSeriesOf(deps, post.user_id),
  ]);
  const current = {
    _id: post.id,
    title: post.title,
    description: post.description,
    category: post.category,
    image: post.image_key === null ? null : { url: imageUrl(deps.storage, post.image_key, "lg") },
    imageAlt: post.image_alt,
    tags: tagsOf(post.tags),
    metaDescription: post.meta_description,
    canonicalUrl: post.canonical_url,
    status: post.status,
    publishAt: post.publish_at,
    updatedAt: post.updated_at,
  };
  return {
    site: context.site,
    post: current,
    categories,
    tags,
    revisions,
    revision: revision && { ...revision, diff: revisionDiff(revision, current) },
    newsletter: { ...offer, choice: post.newsletter },
    series: {
      choices: seriesChoices(series),
      current: post.series_id,
    },
  };
}

const NO_ERRORS: FieldErrors = {};

export async function action({ request, context, params }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const tooMany = await limited(context, "postEdit");
  if (tooMany) return tooMany;
  const { fields, image } = await imageForm(request);
  const { deps } = context;
  if (fields.intent === "restore") {
    const restored = await attempt(() =>
      restoreRevision(deps, viewer.actor, params.id, fields.revisionId ?? ""),
    );
    if (!restored.ok) return fail(restored);
    return { ok: true as const, errors: NO_ERRORS, message: "Revision restored" };
  }
  if (fields.intent === "newsletter-test") {
    const tooManyTests = await limited(context, "testMail");
    if (tooManyTests) return tooManyTests;
    const sent = await attempt(() => sendTestNewsletter(deps, viewer.actor, params.id));
    if (!sent.ok) return fail(sent);
    return { ok: true as const, errors: NO_ERRORS, message: sent.value.message, test: true };
  }
  if (fields.intent !== "save") return fail(failure(400, "Unknown action"));
  // A new cover counts against the uploads' allowance too, as on the other forms.
  const tooManyUploads = image ? await limited(context, "upload") : undefined;
  if (tooManyUploads) return tooManyUploads;
  const wasPublished = (await findPost(deps, params.id))?.status === "published";
  const edit = publishingFields(fields);
  const result = await attempt(async () => {
    if (image) {
      // The fields are checked before the cover is stored, so a refused save changes nothing;
      // then the cover, so a draft given its first one may be published by the same save.
      validate(PostPartialUpdateSchema, edit);
      validate(PostPublishingSchema, edit);
      await context.outsideSlot(() =>
        replacePostImage(deps, viewer.actor, params.id, image, request.signal),
      );
    }
    // The form names every field (tags among them), so what it sends is the post as it should be.
    return updatePost(deps, viewer.actor, params.id, edit);
  });
  if (!result.ok) return fail(result);
  const status = result.value.status;
  const message =
    status === "draft"
      ? "Draft saved"
      : status === "scheduled"
        ? "Post scheduled"
        : wasPublished
          ? "Post updated"
          : "Post published";
  return { ok: true as const, errors: NO_ERRORS, message };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: `Edit: ${loaderData.post.title}`,
    description: "Edit a post.",
    path: postEditorPath(loaderData.post._id),
  });

export default function EditPost({ loaderData }: Route.ComponentProps) {
  const { post, categories, tags, revisions, revision, series } = loaderData;
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const sending = navigation.formData?.get("status");
  const busy =
    navigation.state === "idle" || navigation.formData?.get("intent") !== "save"
      ? undefined
      : sending === "draft" || sending === "scheduled"
        ? sending
        : "published";
  useToastOn(result);
  const errors: FieldErrors = result?.errors ?? {};
  const form = useRef<HTMLFormElement>(null);
  // Only a draft saves itself: a published or scheduled post changes when its writer says.
  const autosave = useAutosave(form, post, post.status === "draft");
  const choices = categories.some((c) => c.title === post.category)
    ? categories
    : [{ _id: "current", title: post.category }, ...categories];
  return (
    <section className="form-page form-page-wide editor-page">
      <h1>Edit post</h1>
      <p className="muted">
        {STATUS_LABELS[post.status]} · last saved <LocalTime iso={post.updatedAt} /> ·{" "}
        <Link to={postPath(post._id)}>View post</Link>
      </p>
      <Form
        // Made again once saved, so every field shows the post as it now is.
        key={post.updatedAt}
        ref={form}
        method="post"
        encType="multipart/form-data"
        noValidate
        className="card form"
      >
        <input type="hidden" name="intent" value="save" />
        <Field label="Title" name="title" defaultValue={post.title} error={errors.title} />
        <SelectField
          label="Category"
          name="category"
          defaultValue={post.category}
          error={errors.category}
        >
          {choices.map((category) => (
            <option key={category._id} value={category.title}>
              {category.title}
            </option>
          ))}
        </SelectField>
        <BodyEditor
          label="Description"
          name="description"
          id="field-description"
          rows={16}
          defaultValue={post.description}
          error={errors.description}
          postId={post._id}
          saved={result?.ok === true}
        />
        {post.image ? (
          <img className="editor-cover" src={post.image.url} alt="" width="240" height="135" />
        ) : null}
        <ImageInput
          label={
            post.image ? "Change the cover image (optional)" : "Cover image (needed to publish)"
          }
          error={errors.image}
          maxBytes={IMAGE_REPLACE_MAX_BYTES}
        />
        <Field
          label="Alt text for the image (optional)"
          name="imageAlt"
          maxLength={IMAGE_ALT_MAX}
          defaultValue={post.imageAlt ?? ""}
          error={errors.imageAlt}
        />
        <WritingFields errors={errors} suggestions={tags} post={post} series={series} />
        <FormAlert result={result} />
        {post.status === "published" ? (
          <div className="publish-buttons">
            <button
              type="submit"
              name="status"
              value="published"
              className="button"
              disabled={busy !== undefined}
            >
              {busy ? "Saving…" : "Update post"}
            </button>
          </div>
        ) : (
          <PublishControls
            choices={["draft", "scheduled", "published"]}
            busy={busy}
            publishAt={post.publishAt}
            error={errors.publishAt}
            // Beside the buttons, in view wherever the writer is in the body (issue 50).
            status={post.status === "draft" ? <AutosaveStatus state={autosave} /> : undefined}
          >
            <NewsletterChoice offer={loaderData.newsletter} />
          </PublishControls>
        )}
        {result?.ok && !("test" in result) ? (
          <p role="status">
            {result.message}. <Link to={postPath(post._id)}>View post</Link>
          </p>
        ) : null}
      </Form>
      {post.status === "published" ? null : (
        <Form method="post" className="card form test-mail">
          <input type="hidden" name="intent" value="newsletter-test" />
          <p className="field-hint">
            See the mail subscribers will get: the post as last saved, sent to your own address.
          </p>
          <button type="submit" className="button button-ghost" disabled={busy !== undefined}>
            Send me a test e-mail
          </button>
          {result?.ok && "test" in result ? <p role="status">{result.message}</p> : null}
        </Form>
      )}
      <Revisions postId={post._id} revisions={revisions} revision={revision} />
    </section>
  );
}

type Loaded = Route.ComponentProps["loaderData"];

/** The post's earlier versions, one shown against the text as it is now, with Restore. */
function Revisions(props: {
  postId: string;
  revisions: Loaded["revisions"];
  revision: Loaded["revision"];
}) {
  const { revisions, revision } = props;
  return (
    <section className="card revisions" aria-labelledby="revisions-title" id="revisions">
      <h2 id="revisions-title">Revisions</h2>
      {revisions.length === 0 ? (
        <p className="muted">
          None yet: each save that changes the title, text, category or tags keeps what it replaced
          here.
        </p>
      ) : (
        <ol className="revision-list">
          {revisions.map((item) => (
            <li key={item._id} aria-current={item._id === revision?._id ? "true" : undefined}>
              <Link to={`?revision=${item._id}#revision`}>
                <LocalTime iso={item.createdAt} />
              </Link>{" "}
              <span className="muted">
                {item.title}
                {item.editor ? ` · replaced by ${item.editor.username}` : ""}
              </span>
            </li>
          ))}
        </ol>
      )}
      {revision ? (
        <div id="revision" className="revision">
          <h3>
            The version replaced <LocalTime iso={revision.createdAt} />, against the post now
          </h3>
          <p className="muted">
            <del>Struck through</del>: only in that version. <ins>Underlined</ins>: only in the post
            now.
          </p>
          <dl className="revision-fields">
            <dt>Title</dt>
            <dd>
              <Diff parts={revision.diff.title} />
            </dd>
            <dt>Category</dt>
            <dd>
              <Diff parts={revision.diff.category} />
            </dd>
            <dt>Tags</dt>
            <dd>
              <Diff parts={revision.diff.tags} />
            </dd>
          </dl>
          <pre className="revision-body" aria-label="Text">
            <Diff parts={revision.diff.body} />
          </pre>
          <Form method="post" encType="multipart/form-data">
            <input type="hidden" name="intent" value="restore" />
            <input type="hidden" name="revisionId" value={revision._id} />
            <button type="submit" className="button button-small">
              Restore this version
            </button>
          </Form>
        </div>
      ) : null}
    </section>
  );
}

function Diff({ parts }: { parts: DiffPart[] }) {
  return (
    <>
      {parts.map((part, index) =>
        part.change === "added" ? (
          <ins key={index}>{part.text}</ins>
        ) : part.change === "removed" ? (
          <del key={index}>{part.text}</del>
        ) : (
          <span key={index}>{part.text}</span>
        ),
      )}
    </>
  );
}
