import { useEffect, useRef, useState } from "react";
import { data, Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { META_DESCRIPTION_MAX, POST_TITLE_MAX } from "../../../contract/limits.js";
import {
  adminPagesPath,
  pageAutosavePath,
  pageEditorPath,
  pagePath,
} from "../../../contract/page-paths.js";
import { PAGE_SLUG_MAX, pageMessages, slugFrom } from "../../../contract/page-rules.js";
import {
  createPage,
  deletePage,
  findPageForAdmin,
  updatePage,
} from "../../../core/pages/pages-service.js";
import { listPageRevisions, restorePageRevision } from "../../../core/pages/page-revisions.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { flashCookie } from "../../features/flash.server.js";
import { attempt, fail, failure, formFields, limited } from "../../features/forms/action.server.js";
import { BodyEditor } from "../../features/forms/body-editor.js";
import { dropDraft, pageDraftKey } from "../../features/forms/draft-store.js";
import { Field, SelectField, TextAreaField } from "../../features/forms/field.js";
import { FormAlert } from "../../features/forms/form-alert.js";
import { useClientValidation } from "../../features/forms/form-state.js";
import { useAutosave, type AutosaveTarget } from "../../features/posts/autosave.js";
import { AutosaveStatus } from "../../features/posts/autosave-status.js";
import { pageMeta } from "../../meta.js";
import { ConfirmDelete } from "../../ui/confirm-delete.js";
import { dateTime } from "../../ui/format.js";
import { useToastOn } from "../../ui/toasts.js";
import type { FieldErrors } from "../../../contract/field-errors.js";
import type { Route } from "./+types/page-editor";

/** The address of the editor of a page still to write. */
const NEW = "new";

/** Where a draft page saves itself (decision 032). */
const PAGE_AUTOSAVE: AutosaveTarget = { url: pageAutosavePath, idField: "pageId" };

/**
 * A static page's editor (decision 032): the posts' body editor (Markdown, images, preview, the
 * text kept in the browser until saved), its address, search description and status, and its
 * revisions to restore. `new` is a page still to write.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { actor } = requireAdmin(context);
  const { deps } = context;
  if (params.id === NEW) {
    return { site: context.site, page: undefined, revisions: [], created: false };
  }
  const found = await attempt(() => findPageForAdmin(deps, actor, params.id));
  if (!found.ok) throw data(null, { status: 404 });
  return {
    site: context.site,
    page: found.value,
    revisions: await listPageRevisions(deps, actor, params.id, {}),
    // Just made from the new page's form: the text the browser kept for that form goes.
    created: new URL(request.url).searchParams.has(CREATED),
  };
}

/** What a refused save had in its fields, to show again. */
type Typed = Partial<
  Record<"title" | "slug" | "description" | "metaDescription" | "status" | "updatedAt", string>
>;
const typedOf = (result: unknown): Typed | undefined =>
  typeof result === "object" && result !== null && "typed" in result
    ? (result.typed as Typed)
    : undefined;

/** The query the new page's form redirects with, once saved. */
const CREATED = "created";

const redirectWith = (to: string, message: string) =>
  redirect(to, { headers: { "Set-Cookie": flashCookie(message) } });

export async function action({ request, context, params }: Route.ActionArgs) {
  const { actor } = requireAdmin(context);
  const tooMany = await limited(context, "postEdit");
  if (tooMany) return tooMany;
  const fields = await formFields(request);
  const { deps } = context;
  const isNew = params.id === NEW;
  if (fields.intent === "delete" && !isNew) {
    const deleted = await attempt(() => deletePage(deps, actor, params.id));
    return deleted.ok ? redirectWith(adminPagesPath, deleted.value.message) : fail(deleted);
  }
  if (fields.intent === "restore" && !isNew) {
    const restored = await attempt(() =>
      restorePageRevision(deps, actor, params.id, fields.revisionId ?? ""),
    );
    return restored.ok
      ? redirectWith(pageEditorPath(params.id), pageMessages.restored)
      : fail(restored);
  }
  if (fields.intent !== "save") return fail(failure(400, "Unknown action"));
  const title = fields.title ?? "";
  const input = {
    title,
    // Left blank, the address follows the title ("About us" -> about-us).
    slug: (fields.slug ?? "").trim() || slugFrom(title),
    description: fields.description ?? "",
    metaDescription: fields.metaDescription ?? "",
    status: fields.status ?? "published",
  };
  const saved = await attempt(() =>
    isNew
      ? createPage(deps, actor, input)
      : updatePage(deps, actor, params.id, { ...input, updatedAt: fields.updatedAt }),
  );
  if (!saved.ok) {
    const typed = { ...input, updatedAt: fields.updatedAt ?? "" };
    return data({ ...saved, typed }, { status: saved.status });
  }
  if (isNew) {
    return redirectWith(`${pageEditorPath(saved.value._id)}?${CREATED}`, pageMessages.created);
  }
  return { ok: true as const, message: pageMessages.saved, errors: {} };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: loaderData.page ? `Edit ${loaderData.page.title}` : "New page",
    description: "A static page of the site.",
    path: pageEditorPath(loaderData.page?._id ?? NEW),
  });

export default function PageEditor({ loaderData }: Route.ComponentProps) {
  const { page, revisions, created } = loaderData;
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  const { errors, form } = useClientValidation(
    () => import("../../../contract/pages.js").then((m) => m.PageCreateSchema),
    result?.errors,
  );
  const typed = typedOf(result);
  useEffect(() => {
    if (created) dropDraft(pageDraftKey(undefined));
  }, [created]);
  const { formRef, autosave, version } = usePageAutosave(page);
  return (
    <>
      <h1 className="page-title">{page ? `Edit page: ${page.title}` : "New page"}</h1>
      <p>
        <Link to={adminPagesPath}>All pages</Link>
        {page?.status === "published" ? (
          <>
            {" · "}
            <a href={pagePath(page.slug)}>View the page</a>
          </>
        ) : null}
      </p>
      <Form
        method="post"
        noValidate
        {...form}
        className="card form page-form"
        ref={formRef}
        // Made again once saved or restored: the fields start from the stored page.
        key={page?.updatedAt ?? "new"}
      >
        <input type="hidden" name="intent" value="save" />
        {page ? (
          // The version the typing started from: a refused save keeps it, so a change made
          // elsewhere meanwhile is refused again rather than written over.
          <input
            type="hidden"
            name="updatedAt"
            value={version ?? typed?.updatedAt ?? page.updatedAt}
          />
        ) : null}
        <TitleAndAddress
          title={typed?.title ?? page?.title}
          slug={typed?.slug ?? page?.slug}
          slugGiven={page !== undefined || Boolean(typed?.slug)}
          errors={errors}
        />
        <BodyEditor
          label="Text (Markdown)"
          name="description"
          id="field-description"
          rows={14}
          defaultValue={typed?.description ?? page?.description}
          error={errors.description}
          draft={pageDraftKey(page?._id)}
          saved={result?.ok === true}
        />
        <TextAreaField
          label={`Meta description (optional: what search results and share cards show, up to ${String(META_DESCRIPTION_MAX)} characters)`}
          name="metaDescription"
          rows={2}
          maxLength={META_DESCRIPTION_MAX}
          defaultValue={typed?.metaDescription ?? page?.metaDescription ?? undefined}
          error={errors.metaDescription}
        />
        <SelectField
          label="Status"
          name="status"
          defaultValue={typed?.status ?? page?.status ?? "published"}
          error={errors.status}
        >
          <option value="published">Published: anyone can read it</option>
          <option value="draft">Draft: only admins see it</option>
        </SelectField>
        <FormAlert result={result} />
        <div className="form-actions">
          <button type="submit" className="button" disabled={busy}>
            {page ? "Save page" : "Create page"}
          </button>
          {page?.status === "draft" ? <AutosaveStatus state={autosave} /> : null}
        </div>
      </Form>
      {page ? (
        <>
          <Revisions revisions={revisions} />
          <ConfirmDelete
            what="page"
            label="Delete page"
            fields={{ intent: "delete" }}
            className="button button-danger"
          />
        </>
      ) : null}
    </>
  );
}

/** A page's earlier versions, newest first, each to restore. */
function Revisions({ revisions }: { revisions: Route.ComponentProps["loaderData"]["revisions"] }) {
  return (
    <section aria-labelledby="page-revisions" className="card">
      <h2 id="page-revisions" className="section-title">
        Revisions
      </h2>
      {revisions.length === 0 ? (
        <p className="empty">
          No earlier versions yet: each save that changes the title or text keeps the one before
          here.
        </p>
      ) : (
        <ul className="revision-list">
          {revisions.map((revision) => (
            <li key={revision._id}>
              <time dateTime={revision.createdAt}>{dateTime(revision.createdAt)}</time>{" "}
              <span className="keep-words">{revision.title}</span>
              {revision.editor ? ` (replaced by ${revision.editor.username})` : null}{" "}
              <Form method="post" className="inline-form">
                <input type="hidden" name="intent" value="restore" />
                <input type="hidden" name="revisionId" value={revision._id} />
                <button
                  type="submit"
                  className="button button-small button-ghost"
                  aria-label={`Restore the version of ${dateTime(revision.createdAt)}`}
                >
                  Restore
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * A draft page saves itself as the admin types (as a post's does, decision 022), and the button's
 * save sends the version the last of those saves made (else it is refused as a change made
 * elsewhere): the newest one this editor made, or the stored page's when this editor made it (a
 * refused save keeps the version it sent, so a change by someone else is refused again).
 */
function usePageAutosave(page: { _id: string; updatedAt: string; status: string } | undefined) {
  const formRef = useRef<HTMLFormElement>(null);
  const [latest, setLatest] = useState<string>();
  const made = useRef(new Set<string>());
  const autosave = useAutosave(
    formRef,
    page ?? { _id: NEW, updatedAt: "" },
    page?.status === "draft",
    PAGE_AUTOSAVE,
    (updatedAt) => {
      made.current.add(updatedAt);
      setLatest(updatedAt);
    },
  );
  const stored = page?.updatedAt;
  // Read again after a save by the button (or someone else's change): its version is the newest.
  useEffect(() => {
    if (stored !== undefined && !made.current.has(stored)) setLatest(undefined);
  }, [stored]);
  const version = stored !== undefined && made.current.has(stored) ? stored : latest;
  return { formRef, autosave, version };
}
/**
 * A page's title and address. A new page's address follows its title until the admin types one
 * of their own. The fields are the browser's (a draft brought back writes them as they were),
 * read when they change.
 */
function TitleAndAddress(props: {
  title: string | undefined;
  slug: string | undefined;
  /** Whether the address is the admin's own already (a saved page, a refused save's). */
  slugGiven: boolean;
  errors: FieldErrors;
}) {
  const { errors } = props;
  const slugTyped = useRef(props.slugGiven);
  const slugField = (form: HTMLFormElement | null) => {
    const field = form?.elements.namedItem("slug");
    return field instanceof HTMLInputElement ? field : undefined;
  };
  return (
    <>
      <Field
        label="Title"
        name="title"
        defaultValue={props.title}
        maxLength={POST_TITLE_MAX}
        error={errors.title}
        onInput={(event) => {
          const slug = slugField(event.currentTarget.form);
          if (slug && !slugTyped.current) slug.value = slugFrom(event.currentTarget.value);
        }}
      />
      <Field
        label="Address"
        hint="/pages/ and this: lowercase letters, digits and hyphens. Left blank, it follows the title; a new one keeps the old address working."
        name="slug"
        defaultValue={props.slug}
        maxLength={PAGE_SLUG_MAX}
        autoCapitalize="none"
        autoComplete="off"
        spellCheck={false}
        error={errors.slug}
        onInput={(event) => {
          slugTyped.current = event.currentTarget.value !== "";
        }}
        onBlur={(event) => {
          const title = event.currentTarget.form?.elements.namedItem("title");
          if (event.currentTarget.value === "" && title instanceof HTMLInputElement) {
            event.currentTarget.value = slugFrom(title.value);
          }
        }}
      />
    </>
  );
}
