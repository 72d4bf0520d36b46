import {
  useRef,
  type ClipboardEvent,
  type DragEvent,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { IMAGE_ALT_MAX } from "../../../contract/limits.js";
import type { Mark } from "./markdown-marks.js";
import { Icon, ImageIcon } from "../../ui/icons.js";
import type { Preview, Upload } from "./body-editor-state.js";

interface Tool {
  mark: Mark;
  label: string;
  glyph: ReactNode;
  key?: string;
}

/** A toolbar glyph drawn as the site's icons are (app/ui/icons.tsx): strokes in currentColor. */
const glyph = (path: string) => (
  <Icon>
    <path d={path} />
  </Icon>
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

export const SHORTCUTS = new Map(
  TOOLS.flatMap((tool) => (tool.key ? [[tool.key, tool.mark]] : [])),
);

/**
 * The Write and Preview tabs: arrow keys move between them, as a tablist's do. Choosing Preview
 * asks for the preview (`onPreview`).
 */
export function EditorTabs(props: {
  tab: "write" | "preview";
  ids: { writeTab: string; previewTab: string; writePanel: string; previewPanel: string };
  onWrite: () => void;
  onPreview: () => void;
}) {
  const { tab, ids } = props;
  const tabs = [
    { id: ids.writeTab, panel: ids.writePanel, name: "write" as const, label: "Write" },
    { id: ids.previewTab, panel: ids.previewPanel, name: "preview" as const, label: "Preview" },
  ];
  return (
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
            if (item.name === "preview") props.onPreview();
            else props.onWrite();
          }}
          onKeyDown={(event) => {
            if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
            event.preventDefault();
            const next = item.name === "write" ? "preview" : "write";
            document.getElementById(next === "write" ? ids.writeTab : ids.previewTab)?.focus();
            if (next === "preview") props.onPreview();
            else props.onWrite();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}

/** The formatting buttons and the image button; the text keeps its selection as they are used. */
export function Toolbar(props: {
  textareaId: string;
  mark: (which: Mark) => void;
  upload: (files: File[]) => void;
}) {
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <div
      role="toolbar"
      aria-label="Formatting"
      aria-controls={props.textareaId}
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
            props.mark(tool.mark);
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
          props.upload(files);
        }}
      />
    </div>
  );
}

/** The preview tab: loading, the server's rendering, or why there is none. */
export function PreviewPanel(props: {
  preview: Preview;
  ids: { previewTab: string; previewPanel: string };
  hidden: boolean;
}) {
  const { preview, ids } = props;
  return (
    <div
      role="tabpanel"
      id={ids.previewPanel}
      aria-labelledby={ids.previewTab}
      hidden={props.hidden}
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
  );
}

const hasFiles = (transfer: DataTransfer | null) =>
  transfer !== null && [...transfer.types].includes("Files");

/** The files handed over; each is checked as an image before it is sent. */
const filesOf = (files: FileList | null | undefined) => [...(files ?? [])];

/** The text's own keys and gestures: formatting shortcuts, and images pasted or dropped in. */
export function textareaHandlers(mark: (which: Mark) => void, upload: (files: File[]) => void) {
  return {
    onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      const shortcut = SHORTCUTS.get(event.key.toLowerCase());
      if (!shortcut) return;
      event.preventDefault();
      mark(shortcut);
    },
    onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
      // Text copied from an office suite comes with a picture of itself: the text is what is meant.
      if (event.clipboardData.types.includes("text/plain")) return;
      const files = filesOf(event.clipboardData.files);
      if (files.length === 0) return;
      event.preventDefault();
      upload(files);
    },
    onDragOver(event: DragEvent<HTMLTextAreaElement>) {
      if (hasFiles(event.dataTransfer)) event.preventDefault();
    },
    onDrop(event: DragEvent<HTMLTextAreaElement>) {
      const files = filesOf(event.dataTransfer.files);
      if (files.length === 0) return;
      event.preventDefault();
      upload(files);
    },
  };
}

const COUNT_FORMAT = new Intl.NumberFormat("en-US");
const TIME_FORMAT = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

/** The characters written against the most a post's body may have. */
export function CharacterCount(props: { id: string; length: number; max: number }) {
  const { length, max } = props;
  const over = length > max;
  return (
    <p id={props.id} className={`body-editor-count${over ? " over" : ""}`}>
      {COUNT_FORMAT.format(length)} / {COUNT_FORMAT.format(max)} characters
      {over ? ` (${COUNT_FORMAT.format(length - max)} too many)` : ""}
    </p>
  );
}

/** Says that text kept in the browser was brought back, and lets the writer drop it. */
export function RestoredNotice(props: { savedAt: string; discard: () => void }) {
  return (
    <div className="body-editor-notice" role="status">
      <span>Restored your unsaved text from {TIME_FORMAT.format(new Date(props.savedAt))}.</span>
      <button type="button" className="link-button" onClick={props.discard}>
        Discard
      </button>
    </div>
  );
}

/** Images on their way, each with its progress, and those refused, each with why. */
export function UploadsState(props: { uploads: Upload[]; refusals: string[]; baseId: string }) {
  const { uploads, refusals, baseId } = props;
  return (
    <>
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
      {refusals.length > 0 ? (
        <ul className="body-editor-refusals" role="alert" aria-label="Images not added">
          {refusals.map((refusal, index) => (
            <li key={`${String(index)}-${refusal}`} className="field-error">
              {refusal}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/**
 * Asks for the description of each image put into the text, for readers who cannot see it; and
 * offers to describe those still written without one (`![](…)`), so a skipped one can be done
 * later. A description already given is changed in the text itself.
 */
export function ImageDescriptions(props: {
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
