import {
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type ClipboardEvent,
  type DragEvent,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { imageFileError, imageRefusalOf } from "../../../contract/content.js";
import {
  BODY_IMAGE_MAX_BYTES,
  IMAGE_ALT_MAX,
  POST_DESCRIPTION_MAX,
} from "../../../contract/limits.js";
import { dropDraft, keepDraft, draftKey, readDraft } from "./draft-store.js";
import {
  describeImageEdit,
  imageMarkdown,
  markEdit,
  undescribedImages,
  type Edit,
  type Mark,
} from "./markdown-marks.js";
import { ImageIcon } from "../../ui/icons.js";
import { uploadImage } from "./upload-image.js";
// The preview looks as the post page will: its body styles come with the editor.
import "../posts/post-body.css";
import "./body-editor.css";

/** Where the editor asks for a preview and sends images (the site's routes, with its session). */
export const PREVIEW_URL = "/posts/preview";
export const IMAGE_UPLOAD_URL = "/posts/images";

const COUNT_FORMAT = new Intl.NumberFormat("en-US");
const TIME_FORMAT = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

interface Tool {
  mark: Mark;
  label: string;
  glyph: ReactNode;
  key?: string;
}

/** A toolbar glyph drawn as the site's icons are (app/ui/icons.tsx): strokes in currentColor. */
const glyph = (path: string) => (
  <svg
    viewBox="0 0 24 24"
    width="1em"
    height="1em"
    fill="none"
    stroke="currentColor"
    strokeWidth="2"
    strokeLinecap="round"
    strokeLinejoin="round"
  >
    <path d={path} />
  </svg>
);

const TOOLS: Tool[] = [
  { mark: "bold", label: "Bold", glyph: <b>B</b>, key: "b" },
  { mark: "italic", label: "Italic", glyph: <i>I</i>, key: "i" },
  { mark: "heading", label: "Heading", glyph: <b>H</b> },
  {
    mark: "link",
    label: "Link",
    glyph: glyph(
      "M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1",
    ),
    key: "k",
  },
  { mark: "quote", label: "Quote", glyph: glyph("M4 6h16M8 12h12M8 18h12M4 11v8") },
  { mark: "code", label: "Code", glyph: glyph("m8 7-5 5 5 5M16 7l5 5-5 5") },
  {
    mark: "list",
    label: "List",
    glyph: glyph("M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01"),
  },
];

const SHORTCUTS = new Map(TOOLS.flatMap((tool) => (tool.key ? [[tool.key, tool.mark]] : [])));

interface Upload {
  id: number;
  name: string;
  percent: number;
}

type Preview =
  | { state: "idle" }
  | { state: "loading" }
  | { state: "shown"; html: string; source: string }
  | { state: "failed"; message: string };

/**
 * Replaces the selection through the browser's own editing, so Undo takes the change back; the
 * textarea's input event then updates the form as typing does.
 */
function applyToTextarea(textarea: HTMLTextAreaElement, edit: Edit) {
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

/** The title field of the same form, whose text is kept with the body's. */
function titleInput(textarea: HTMLTextAreaElement | null) {
  const field = textarea?.form?.elements.namedItem("title");
  return field instanceof HTMLInputElement ? field : undefined;
}

const hasFiles = (transfer: DataTransfer | null) =>
  transfer !== null && [...transfer.types].includes("Files");

/** The files handed over; each is checked as an image before it is sent. */
const filesOf = (files: FileList | null | undefined) => [...(files ?? [])];

export interface BodyEditorProps {
  label: string;
  name: string;
  id: string;
  rows?: number;
  defaultValue?: string;
  error?: string | undefined;
  /** The post being edited; absent on a new post. Keys its kept draft and its preview's format. */
  postId?: string | undefined;
  /** Set once the form has been saved: the kept draft is dropped. */
  saved?: boolean;
}

/**
 * The post body field: a plain textarea (all there is without JavaScript), and once scripts run,
 * Write and Preview tabs, a toolbar and shortcuts for Markdown, images uploaded by button, drop or
 * paste, a character count, and the text kept in the browser until the post is saved.
 */
export function BodyEditor(props: BodyEditorProps) {
  const { id, error } = props;
  // As a textarea holds it (a form sends its line breaks as CRLF; the text area shows LF).
  const initial = (props.defaultValue ?? "").replace(/\r\n?/g, "\n");
  const [value, setValue] = useState(initial);
  const [enhanced, setEnhanced] = useState(false);
  const [tab, setTab] = useState<"write" | "preview">("write");
  const [preview, setPreview] = useState<Preview>({ state: "idle" });
  const [uploads, setUploads] = useState<Upload[]>([]);
  /** Images refused, each named with its file and the rule: shown by the upload, not the text. */
  const [uploadErrors, setUploadErrors] = useState<string[]>([]);
  /** Images put in that wait for their description, oldest first: the first is asked for. */
  const [toDescribe, setToDescribe] = useState<{ url: string; name: string }[]>([]);
  const [description, setDescription] = useState("");
  const [restored, setRestored] = useState<{ savedAt: string; title: string } | undefined>();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const nextUpload = useRef(0);
  const baseId = useId();
  const writeTab = `${baseId}-write-tab`;
  const previewTab = `${baseId}-preview-tab`;
  const writePanel = `${baseId}-write`;
  const previewPanel = `${baseId}-preview`;
  const countId = `${id}-count`;
  const errorId = `${id}-error`;
  const key = draftKey(props.postId);
  const shownError = error;

  // Enhance after hydration, and bring back what was being written here before.
  useEffect(() => {
    setEnhanced(true);
    const kept = readDraft(key);
    const title = titleInput(textarea.current);
    if (!kept || (kept.description === initial && kept.title === (title?.value ?? ""))) return;
    setRestored({ savedAt: kept.savedAt, title: title?.value ?? "" });
    setValue(kept.description);
    if (title) title.value = kept.title;
    // Only when the form opens (not on `initial`): later renders must not bring a discarded draft back.
  }, [key]);

  // Keep the title's text too, as it is typed.
  const keep = useCallback(
    (description: string) => {
      const title = titleInput(textarea.current)?.value ?? "";
      keepDraft(key, { title, description });
    },
    [key],
  );
  useEffect(() => {
    const title = titleInput(textarea.current);
    if (!title) return;
    const onInput = () => {
      keep(textarea.current?.value ?? "");
    };
    title.addEventListener("input", onInput);
    return () => {
      title.removeEventListener("input", onInput);
    };
  }, [keep]);

  useEffect(() => {
    if (props.saved) {
      dropDraft(key);
      setRestored(undefined);
    }
  }, [props.saved, key]);

  // A refused form shows its message under the text: the text must be in view.
  useEffect(() => {
    if (error) setTab("write");
  }, [error]);

  const change = (next: string) => {
    setValue(next);
    keep(next);
  };

  const discard = () => {
    dropDraft(key);
    const title = titleInput(textarea.current);
    if (title && restored) title.value = restored.title;
    setValue(initial);
    setRestored(undefined);
    textarea.current?.focus();
  };

  const mark = (which: Mark) => {
    const element = textarea.current;
    if (!element) return;
    applyToTextarea(
      element,
      markEdit(which, {
        value: element.value,
        start: element.selectionStart,
        end: element.selectionEnd,
      }),
    );
  };

  const insertAtCursor = (text: string) => {
    const element = textarea.current;
    if (!element) return;
    const at = element.selectionEnd;
    applyToTextarea(element, {
      from: element.selectionStart,
      to: at,
      insert: text,
      start: element.selectionStart + text.length,
      end: element.selectionStart + text.length,
    });
  };

  const refuse = (file: File, message: string) => {
    setUploadErrors((current) => [
      ...current,
      imageRefusalOf(file.name, message, BODY_IMAGE_MAX_BYTES),
    ]);
  };

  const upload = (files: File[]) => {
    setUploadErrors([]);
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
        insertAtCursor(imageMarkdown(outcome.image.url));
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

  const showPreview = async () => {
    setTab("preview");
    const source = value;
    if (preview.state === "shown" && preview.source === source) return;
    setPreview({ state: "loading" });
    const form = new URLSearchParams({ description: source });
    if (props.postId) form.set("postId", props.postId);
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

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
    const shortcut = SHORTCUTS.get(event.key.toLowerCase());
    if (!shortcut) return;
    event.preventDefault();
    mark(shortcut);
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    // Text copied from an office suite comes with a picture of itself: the text is what is meant.
    if (event.clipboardData.types.includes("text/plain")) return;
    const files = filesOf(event.clipboardData.files);
    if (files.length === 0) return;
    event.preventDefault();
    upload(files);
  };

  const onDragOver = (event: DragEvent<HTMLTextAreaElement>) => {
    if (hasFiles(event.dataTransfer)) event.preventDefault();
  };

  const onDrop = (event: DragEvent<HTMLTextAreaElement>) => {
    const files = filesOf(event.dataTransfer.files);
    if (files.length === 0) return;
    event.preventDefault();
    upload(files);
  };

  const over = value.length > POST_DESCRIPTION_MAX;
  const describedBy = [shownError ? errorId : undefined, enhanced ? countId : undefined]
    .filter(Boolean)
    .join(" ");

  const area = (
    <textarea
      ref={textarea}
      id={id}
      name={props.name}
      rows={props.rows}
      value={value}
      aria-invalid={shownError ? true : undefined}
      aria-describedby={describedBy || undefined}
      onChange={(event) => {
        change(event.currentTarget.value);
      }}
      {...(enhanced ? { onKeyDown, onPaste, onDragOver, onDrop } : {})}
    />
  );

  const message = shownError ? (
    <p id={errorId} className="field-error">
      {shownError}
    </p>
  ) : null;

  if (!enhanced) {
    return (
      <div className="field">
        <label htmlFor={id}>{props.label}</label>
        {area}
        {message}
      </div>
    );
  }

  const tabs = [
    { id: writeTab, panel: writePanel, name: "write" as const, label: "Write" },
    { id: previewTab, panel: previewPanel, name: "preview" as const, label: "Preview" },
  ];

  return (
    <div className="field body-editor">
      <div className="body-editor-head">
        <label htmlFor={id}>{props.label}</label>
        <div role="tablist" aria-label="Write or preview" className="body-editor-tabs">
          {tabs.map((item) => (
            <button
              key={item.name}
              type="button"
              role="tab"
              id={item.id}
              aria-selected={tab === item.name}
              aria-controls={item.panel}
              tabIndex={tab === item.name ? 0 : -1}
              onClick={() => {
                if (item.name === "preview") void showPreview();
                else setTab("write");
              }}
              onKeyDown={(event) => {
                if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
                event.preventDefault();
                const next = item.name === "write" ? "preview" : "write";
                document.getElementById(next === "write" ? writeTab : previewTab)?.focus();
                if (next === "preview") void showPreview();
                else setTab("write");
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      </div>
      {restored ? (
        <div className="body-editor-notice" role="status">
          <span>
            Restored your unsaved text from {TIME_FORMAT.format(new Date(restored.savedAt))}.
          </span>
          <button type="button" className="link-button" onClick={discard}>
            Discard
          </button>
        </div>
      ) : null}
      <div role="tabpanel" id={writePanel} aria-labelledby={writeTab} hidden={tab !== "write"}>
        <div
          role="toolbar"
          aria-label="Formatting"
          aria-controls={id}
          className="body-editor-toolbar"
        >
          {TOOLS.map((tool) => (
            <button
              key={tool.mark}
              type="button"
              aria-label={tool.label}
              title={tool.key ? `${tool.label} (Ctrl+${tool.key.toUpperCase()})` : tool.label}
              aria-keyshortcuts={
                tool.key
                  ? `Control+${tool.key.toUpperCase()} Meta+${tool.key.toUpperCase()}`
                  : undefined
              }
              onMouseDown={(event) => {
                // The selection in the text stays where it is.
                event.preventDefault();
              }}
              onClick={() => {
                mark(tool.mark);
              }}
            >
              <span aria-hidden="true">{tool.glyph}</span>
            </button>
          ))}
          <button
            type="button"
            aria-label="Image"
            title="Image (or drop or paste one in the text)"
            onMouseDown={(event) => {
              event.preventDefault();
            }}
            onClick={() => fileInput.current?.click()}
          >
            <ImageIcon />
          </button>
          <input
            ref={fileInput}
            type="file"
            hidden
            multiple
            accept=".jpg,.jpeg,.png,.gif,.jfif,image/jpeg,image/png,image/gif"
            onChange={(event) => {
              const files = filesOf(event.currentTarget.files);
              event.currentTarget.value = "";
              upload(files);
            }}
          />
        </div>
        {area}
        <ImageDescriptions
          asked={toDescribe[0]}
          description={description}
          setDescription={setDescription}
          describe={describe}
          undescribed={toDescribe.length === 0 ? undescribedImages(value) : []}
          askAgain={(urls) => {
            setToDescribe(urls.map((url) => ({ url, name: "An image in the text" })));
          }}
          inputId={`${baseId}-alt`}
        />
      </div>
      <div
        role="tabpanel"
        id={previewPanel}
        aria-labelledby={previewTab}
        hidden={tab !== "preview"}
        className="body-editor-preview"
        aria-busy={preview.state === "loading"}
      >
        {preview.state === "loading" ? <p className="muted">Loading preview…</p> : null}
        {preview.state === "failed" ? <p className="field-error">{preview.message}</p> : null}
        {preview.state === "shown" && preview.html === "" ? (
          <p className="muted">Nothing to preview yet.</p>
        ) : null}
        {preview.state === "shown" && preview.html !== "" ? (
          <div
            className="post-body"
            // The server's rendering of this text (core/posts/body.ts, via the preview route):
            // the same sanitized HTML the post page shows, made by the same code; never other HTML.
            dangerouslySetInnerHTML={{ __html: preview.html }}
          />
        ) : null}
      </div>
      {uploads.length > 0 ? (
        <ul className="body-editor-uploads" aria-label="Image uploads">
          {uploads.map((item) => (
            <li key={item.id}>
              <label htmlFor={`${baseId}-upload-${String(item.id)}`}>Uploading {item.name}</label>
              <progress id={`${baseId}-upload-${String(item.id)}`} max={100} value={item.percent}>
                {item.percent}%
              </progress>
            </li>
          ))}
        </ul>
      ) : null}
      {uploadErrors.length > 0 ? (
        <ul className="body-editor-refusals" role="alert" aria-label="Images not added">
          {uploadErrors.map((refusal, index) => (
            <li key={`${String(index)}-${refusal}`} className="field-error">
              {refusal}
            </li>
          ))}
        </ul>
      ) : null}
      <p id={countId} className={`body-editor-count${over ? " over" : ""}`}>
        {COUNT_FORMAT.format(value.length)} / {COUNT_FORMAT.format(POST_DESCRIPTION_MAX)} characters
        {over ? ` (${COUNT_FORMAT.format(value.length - POST_DESCRIPTION_MAX)} too many)` : ""}
      </p>
      {message}
    </div>
  );
}

/**
 * Asks for the description of each image put into the text, for readers who cannot see it; and
 * offers to describe those still written without one (`![](…)`), so a skipped one can be done
 * later. A description already given is changed in the text itself.
 */
function ImageDescriptions(props: {
  asked: { url: string; name: string } | undefined;
  description: string;
  setDescription: (text: string) => void;
  describe: (alt: string | undefined) => void;
  undescribed: string[];
  askAgain: (urls: string[]) => void;
  inputId: string;
}) {
  const { asked, undescribed } = props;
  if (!asked) {
    if (undescribed.length === 0) return null;
    return (
      <p className="body-editor-notice">
        <span>
          {undescribed.length === 1
            ? "An image in the text has no description."
            : `${String(undescribed.length)} images in the text have no description.`}
        </span>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            props.askAgain(undescribed);
          }}
        >
          Describe {undescribed.length === 1 ? "it" : "them"}
        </button>
      </p>
    );
  }
  return (
    <div className="body-editor-alt" role="group" aria-label="Image description">
      <label htmlFor={props.inputId}>
        Describe {asked.name} for readers who cannot see it (alt text)
      </label>
      <div className="body-editor-alt-row">
        <input
          id={props.inputId}
          type="text"
          maxLength={IMAGE_ALT_MAX}
          value={props.description}
          onChange={(event) => {
            props.setDescription(event.currentTarget.value);
          }}
          onKeyDown={(event) => {
            // Enter gives the description; it must not send the post's form.
            if (event.key !== "Enter") return;
            event.preventDefault();
            props.describe(props.description);
          }}
        />
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            props.describe(props.description);
          }}
        >
          Add description
        </button>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            props.describe(undefined);
          }}
        >
          Skip
        </button>
      </div>
    </div>
  );
}
