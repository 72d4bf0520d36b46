import { useEffect, useState } from "react";
import { Form, Link, useActionData, useNavigate, useNavigation } from "react-router";
import { imageFileError, PostCreateSchema } from "../../contract/content.js";
import { IMAGE_ALT_MAX, IMAGE_CREATE_MAX_BYTES } from "../../contract/limits.js";
import { parseWith, type FieldErrors } from "../../contract/validation.js";
import { listCategories } from "../../core/categories/categories-service.js";
import { createPost, listTags } from "../../core/posts/posts-service.js";
import { listSeriesOf } from "../../core/series/series-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { attempt, fail, imageForm, limited } from "../features/forms/action.server.js";
import { BodyEditor } from "../features/forms/body-editor.js";
import { Field, SelectField } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useSingleSubmit } from "../features/forms/form-state.js";
import { ImageInput } from "../features/forms/image-input.js";
import { PublishControls } from "../features/posts/publish-controls.js";
import { NewsletterChoice } from "../features/newsletter/newsletter-choice.js";
import { newsletterAudience } from "../../core/newsletter/audience.js";
import { newsletterDefaultOf } from "../../core/site-settings/site-settings-service.js";
import { afterSaving, publishingFields } from "../features/posts/publishing.server.js";
import publishingStyles from "../features/posts/publishing.css?url";
import { WritingFields } from "../features/posts/writing-fields.js";
import { seriesChoices } from "../features/series/series-field.js";
import { pageMeta } from "../meta.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/create-post";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: publishingStyles }];

/** SPEC.md 4: the created flag clears after 2 seconds and the author goes home. */
const CREATED_MS = 2000;

export async function loader({ context }: Route.LoaderArgs) {
  const viewer = requireViewer(context);
  const [categories, tags, audience, choice, series] = await Promise.all([
    listCategories(context.deps),
    // The most used tags, offered as the writer types.
    listTags(context.deps),
    newsletterAudience(context.deps, viewer.actor.id),
    newsletterDefaultOf(context.deps),
    listSeriesOf(context.deps, viewer.actor.id),
  ]);
  return {
    site: context.site,
    categories,
    tags,
    series: seriesChoices(series),
    isAdmin: viewer.user.isAdmin,
    newsletter: { audience, choice },
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const tooMany = await limited(context, "upload");
  if (tooMany) return tooMany;
  const result = await attempt(async () => {
    const { fields, image } = await imageForm(request);
    const form = { fields: publishingFields(fields), image };
    return context.outsideSlot(() => createPost(context.deps, viewer.actor, form, request.signal));
  });
  if (!result.ok) return fail(result);
  const { message, to } = afterSaving(result.value.status, viewer.actor.id);
  return { ok: true, message, errors: {}, postId: result.value._id, to };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Create New Post",
    description: "Write a new post.",
    path: "/posts/create-post",
  });

/** The browser's check before sending; `status` is the button pressed (a draft needs no cover). */
function checkForm(form: HTMLFormElement, status: string | null | undefined): FieldErrors {
  const data = new FormData(form);
  const file = data.get("image");
  const chosen = file instanceof File && file.size > 0 ? file : undefined;
  const imageError =
    status === "draft" && !chosen ? undefined : imageFileError(chosen, IMAGE_CREATE_MAX_BYTES);
  const parsed = parseWith(PostCreateSchema, Object.fromEntries(data.entries()));
  return { ...(imageError ? { image: imageError } : {}), ...(parsed.ok ? {} : parsed.errors) };
}

export default function CreatePost({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const sending = navigation.formData?.get("status");
  const busy =
    navigation.state === "idle"
      ? undefined
      : sending === "draft" || sending === "scheduled"
        ? sending
        : "published";
  // Created: the page goes home in a moment, and the same post must not be sent again meanwhile.
  const created = result?.ok === true;
  const once = useSingleSubmit(busy !== undefined);
  const navigate = useNavigate();
  const [clientErrors, setClientErrors] = useState<FieldErrors | undefined>();
  const errors: FieldErrors = clientErrors ?? result?.errors ?? {};
  useToastOn(result);
  useEffect(() => {
    if (!result?.ok) return;
    const timer = setTimeout(() => {
      void navigate(result.to);
    }, CREATED_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [result, navigate]);

  return (
    <section className="form-page form-page-wide">
      <h1>Create New Post</h1>
      <Form
        method="post"
        encType="multipart/form-data"
        noValidate
        className="card form"
        onSubmit={(event) => {
          if (created || once.pending()) {
            event.preventDefault();
            return;
          }
          const found = checkForm(
            event.currentTarget,
            (event.nativeEvent as SubmitEvent).submitter?.getAttribute("value"),
          );
          setClientErrors(Object.keys(found).length > 0 ? found : undefined);
          if (Object.keys(found).length > 0) event.preventDefault();
          else once.start();
        }}
      >
        <Field label="Post Title" name="title" error={errors.title} />
        <SelectField
          label="Category"
          name="category"
          defaultValue=""
          error={errors.category}
          aria-describedby={loaderData.categories.length === 0 ? "no-categories" : undefined}
        >
          <option value="" disabled>
            Select A Category
          </option>
          {loaderData.categories.map((category) => (
            <option key={category._id} value={category.title}>
              {category.title}
            </option>
          ))}
        </SelectField>
        {loaderData.categories.length === 0 ? (
          <NoCategoriesYet isAdmin={loaderData.isAdmin} />
        ) : null}
        <BodyEditor
          label="Post Description"
          name="description"
          id="field-description"
          rows={8}
          error={errors.description}
          saved={result?.ok === true}
        />
        <ImageInput
          label="Post Image (a draft may wait for it)"
          error={errors.image}
          maxBytes={IMAGE_CREATE_MAX_BYTES}
        />
        <Field
          label="Alt text for the image (optional)"
          name="imageAlt"
          maxLength={IMAGE_ALT_MAX}
          error={errors.imageAlt}
        />
        <WritingFields
          errors={errors}
          suggestions={loaderData.tags}
          series={{ choices: loaderData.series }}
        />
        <FormAlert result={result} />
        <PublishControls
          choices={["draft", "scheduled", "published"]}
          busy={busy}
          locked={created}
          error={errors.publishAt}
        >
          <NewsletterChoice offer={loaderData.newsletter} />
        </PublishControls>
        {result?.ok ? (
          <p role="status">
            {result.message}.{" "}
            {result.to === "/" ? <a href="/">Go to home page</a> : <a href={result.to}>See it</a>}
          </p>
        ) : null}
      </Form>
    </section>
  );
}

/** Every post needs a category: an empty list says why, and who can add the first one. */
function NoCategoriesYet({ isAdmin }: { isAdmin: boolean }) {
  return (
    <p className="muted" id="no-categories">
      There are no categories yet, and every post needs one.{" "}
      {isAdmin ? (
        <>
          Add the first one in the{" "}
          <Link to="/admin-dashboard/categories-table">categories table</Link>, then come back to
          this page.
        </>
      ) : (
        <>An administrator has to add the first one before posts can be written.</>
      )}
    </p>
  );
}
