import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { imageFileError, imageRefusalOf } from "../../../contract/content-rules.js";
import { BODY_IMAGE_MAX_BYTES } from "../../../contract/limits.js";
import { dropDraft, keepDraft, readDraft } from "./draft-store.js";
import { describeImageEdit, imageMarkdown, type Edit } from "./markdown-marks.js";
import { uploadImage } from "./upload-image.js";

/** Where the editor asks for a preview and sends images (the site's routes, with its session). */
export const PREVIEW_URL = "/posts/preview";
export const IMAGE_UPLOAD_URL = "/posts/images";

/**
 * Replaces the selection through the browser's own editing, so Undo takes the change back; the
 * textarea's input event then updates the form as typing does.
 */
export function applyToTextarea(textarea: HTMLTextAreaElement, edit: Edit) {
  textarea.focus();
  textarea.setSelectionRange(edit.from, edit.to);
  const done =
    edit.insert !== "" &&
    // Deprecated but still the only way an edit joins the browser's undo history in a textarea.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    document.execCommand("insertText", false, edit.insert);
  if (!done) {
    textarea.setRangeText(edit.insert, edit.from, edit.to, "end");
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
  }
  textarea.setSelectionRange(edit.start, edit.end);
}

/** Puts `text` where the cursor is (over the selection), as typing would. */
export function insertAtCursor(element: HTMLTextAreaElement, text: string) {
  applyToTextarea(element, {
    from: element.selectionStart,
    to: element.selectionEnd,
    insert: text,
    start: element.selectionStart + text.length,
    end: element.selectionStart + text.length,
  });
}

/**
 * The fields of the same form kept with the body's text as they are typed or chosen, so a reload
 * brings back the whole post being written, its category and tags too (issue 50).
 */
const KEPT_FIELDS = ["title", "category", "tags", "imageAlt", "metaDescription", "canonicalUrl"];

type KeptControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function keptControls(textarea: HTMLTextAreaElement | null) {
  const controls = new Map<string, KeptControl>();
  for (const name of KEPT_FIELDS) {
    const field = textarea?.form?.elements.namedItem(name);
    if (
      field instanceof HTMLInputElement ||
      field instanceof HTMLSelectElement ||
      field instanceof HTMLTextAreaElement
    ) {
      controls.set(name, field);
    }
  }
  return controls;
}

/** What the kept fields hold now. */
function fieldValues(textarea: HTMLTextAreaElement | null): Record<string, string> {
  return Object.fromEntries(
    [...keptControls(textarea)].map(([name, control]) => [name, control.value]),
  );
}

/** Puts values back into the kept fields (a category no longer offered stays unchosen). */
function putFieldValues(textarea: HTMLTextAreaElement | null, values: Record<string, string>) {
  for (const [name, control] of keptControls(textarea)) {
    const value = values[name];
    if (value !== undefined) control.value = value;
  }
}

/**
 * The body's text, kept in the browser with the form's other fields as they are typed, brought
 * back when the form opens again, and dropped once the post is saved (or the writer discards it).
 */
export function useKeptText(
  key: string,
  initial: string,
  textarea: RefObject<HTMLTextAreaElement | null>,
  saved: boolean | undefined,
) {
  const [value, setValue] = useState(initial);
  /** When the brought-back text was kept, and what the fields held before it came back. */
  const [restored, setRestored] = useState<
    { savedAt: string; fields: Record<string, string> } | undefined
  >();

  // Bring back what was being written here before.
  useEffect(() => {
    const kept = readDraft(key);
    if (!kept) return;
    const before = fieldValues(textarea.current);
    const keptFields = { ...kept.fields, title: kept.title };
    const same = Object.entries(keptFields).every(
      ([name, text]) => (before[name] ?? text) === text,
    );
    if (kept.description === initial && same) return;
    setRestored({ savedAt: kept.savedAt, fields: before });
    setValue(kept.description);
    putFieldValues(textarea.current, keptFields);
    // Only when the form opens (not on `initial`): later renders must not bring a discarded draft back.
  }, [key]);

  const keep = useCallback(
    (description: string) => {
      const { title = "", ...fields } = fieldValues(textarea.current);
      keepDraft(key, { title, description, fields });
    },
    [key, textarea],
  );
  // Keep the other fields too, as they are typed or chosen.
  useEffect(() => {
    const form = textarea.current?.form;
    if (!form) return;
    const onInput = (event: Event) => {
      const { target } = event;
      const name =
        target instanceof HTMLInputElement ||
        target instanceof HTMLSelectElement ||
        target instanceof HTMLTextAreaElement
          ? target.name
          : "";
      // The body keeps itself (`change` below); the other kept fields are kept here.
      if (KEPT_FIELDS.includes(name)) keep(textarea.current?.value ?? "");
    };
    form.addEventListener("input", onInput);
    form.addEventListener("change", onInput);
    return () => {
      form.removeEventListener("input", onInput);
      form.removeEventListener("change", onInput);
    };
  }, [keep, textarea]);

  useEffect(() => {
    if (saved) {
      dropDraft(key);
      setRestored(undefined);
    }
  }, [saved, key]);

  const change = (next: string) => {
    setValue(next);
    keep(next);
  };

  const discard = () => {
    dropDraft(key);
    if (restored) putFieldValues(textarea.current, restored.fields);
    setValue(initial);
    setRestored(undefined);
    textarea.current?.focus();
  };

  return { value, change, restored, discard };
}

export interface Upload {
  id: number;
  name: string;
  percent: number;
}

/**
 * Images sent as they are put in (button, drop, paste): each checked first, its progress shown,
 * its Markdown put at the cursor once stored, and then its description asked for and written in.
 */
export function useImageUploads(textarea: RefObject<HTMLTextAreaElement | null>) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  /** Images refused, each named with its file and the rule: shown by the upload, not the text. */
  const [refusals, setRefusals] = useState<string[]>([]);
  /** Images put in that wait for their description, oldest first: the first is asked for. */
  const [toDescribe, setToDescribe] = useState<{ url: string; name: string }[]>([]);
  /** The description being written for the image asked about. */
  const [description, setDescription] = useState("");
  const nextUpload = useRef(0);

  const refuse = (file: File, message: string) => {
    setRefusals((current) => [
      ...current,
      imageRefusalOf(file.name, message, BODY_IMAGE_MAX_BYTES),
    ]);
  };

  const upload = (files: File[]) => {
    setRefusals([]);
    for (const file of files) {
      const refused = imageFileError(file, BODY_IMAGE_MAX_BYTES);
      if (refused) {
        refuse(file, refused);
        continue;
      }
      nextUpload.current += 1;
      const uploadId = nextUpload.current;
      setUploads((current) => [...current, { id: uploadId, name: file.name, percent: 0 }]);
      void uploadImage(IMAGE_UPLOAD_URL, file, (fraction) => {
        setUploads((current) =>
          current.map((item) =>
            item.id === uploadId ? { ...item, percent: Math.round(fraction * 100) } : item,
          ),
        );
      }).then((outcome) => {
        setUploads((current) => current.filter((item) => item.id !== uploadId));
        if (!outcome.ok) {
          refuse(file, outcome.message);
          return;
        }
        if (textarea.current) insertAtCursor(textarea.current, imageMarkdown(outcome.image.url));
        setToDescribe((current) => [...current, { url: outcome.image.url, name: file.name }]);
      });
    }
  };

  /** Gives the image asked about its description (Undo takes it back), or skips it. */
  const describe = (alt: string | undefined) => {
    const [asked] = toDescribe;
    const element = textarea.current;
    if (asked && element && alt !== undefined && alt.trim() !== "") {
      const edit = describeImageEdit(element.value, asked.url, alt);
      if (edit) applyToTextarea(element, edit);
    }
    setDescription("");
    setToDescribe((current) => current.slice(1));
  };

  return {
    uploads,
    refusals,
    toDescribe,
    setToDescribe,
    upload,
    description,
    setDescription,
    describe,
  };
}

export type Preview =
  | { state: "idle" }
  | { state: "loading" }
  | { state: "shown"; html: string; source: string }
  | { state: "failed"; message: string };

/** The preview: the server's rendering of the text, asked for again only when the text changed. */
export function usePreview(postId: string | undefined) {
  const [preview, setPreview] = useState<Preview>({ state: "idle" });
  const show = async (source: string) => {
    if (preview.state === "shown" && preview.source === source) return;
    setPreview({ state: "loading" });
    const form = new URLSearchParams({ description: source });
    if (postId) form.set("postId", postId);
    try {
      const response = await fetch(PREVIEW_URL, {
        method: "POST",
        body: form,
        headers: { accept: "application/json" },
      });
      const body = (await response.json()) as { html?: string; message?: string };
      setPreview(
        response.ok && typeof body.html === "string"
          ? { state: "shown", html: body.html, source }
          : { state: "failed", message: body.message ?? "The preview could not be made" },
      );
    } catch {
      setPreview({ state: "failed", message: "The network is unavailable: no preview for now" });
    }
  };
  return { preview, show };
}
