import { useEffect, useId, useRef, useState } from "react";
import { POST_DESCRIPTION_MAX } from "../../../contract/limits.js";
import { draftKey } from "./draft-store.js";
import { markEdit, undescribedImages, type Mark } from "./markdown-marks.js";
import {
  CharacterCount,
  EditorTabs,
  ImageDescriptions,
  PreviewPanel,
  RestoredNotice,
  textareaHandlers,
  Toolbar,
  UploadsState,
} from "./body-editor-parts.js";
import { applyToTextarea, useImageUploads, useKeptText, usePreview } from "./body-editor-state.js";
// The preview looks as the post page will: its body styles come with the editor.
import "../posts/post-body.css";
import "./body-editor.css";

export { IMAGE_UPLOAD_URL, PREVIEW_URL } from "./body-editor-state.js";

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
  /** Where the browser keeps the unsaved text, when not a post's (a static page's). */
  draft?: string | undefined;
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
  const textarea = useRef<HTMLTextAreaElement>(null);
  const [enhanced, setEnhanced] = useState(false);
  const [tab, setTab] = useState<"write" | "preview">("write");
  const { value, change, restored, discard } = useKeptText(
    props.draft ?? draftKey(props.postId),
    initial,
    textarea,
    props.saved,
  );
  const images = useImageUploads(textarea);
  const { preview, show } = usePreview(props.postId);
  const baseId = useId();
  const ids = {
    writeTab: `${baseId}-write-tab`,
    previewTab: `${baseId}-preview-tab`,
    writePanel: `${baseId}-write`,
    previewPanel: `${baseId}-preview`,
  };
  const countId = `${id}-count`;
  const errorId = `${id}-error`;

  // Enhanced after hydration: without scripts the plain textarea is all there is.
  useEffect(() => {
    setEnhanced(true);
  }, []);
  // A refused form shows its message under the text: the text must be in view.
  useEffect(() => {
    if (error) setTab("write");
  }, [error]);

  const mark = (which: Mark) => {
    const element = textarea.current;
    if (!element) return;
    const { value: text, selectionStart: start, selectionEnd: end } = element;
    applyToTextarea(element, markEdit(which, { value: text, start, end }));
  };

  const showPreview = () => {
    setTab("preview");
    void show(value);
  };

  const describedBy = [error ? errorId : undefined, enhanced ? countId : undefined]
    .filter(Boolean)
    .join(" ");
  const area = (
    <textarea
      ref={textarea}
      id={id}
      name={props.name}
      rows={props.rows}
      value={value}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy || undefined}
      onChange={(event) => {
        change(event.currentTarget.value);
      }}
      {...(enhanced ? textareaHandlers(mark, images.upload) : {})}
    />
  );
  const message = error ? (
    <p id={errorId} className="field-error">
      {error}
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

  return (
    <div className="field body-editor">
      <div className="body-editor-head">
        <label htmlFor={id}>{props.label}</label>
        <EditorTabs
          tab={tab}
          ids={ids}
          onWrite={() => {
            setTab("write");
          }}
          onPreview={showPreview}
        />
      </div>
      {restored ? <RestoredNotice savedAt={restored.savedAt} discard={discard} /> : null}
      <div
        role="tabpanel"
        id={ids.writePanel}
        aria-labelledby={ids.writeTab}
        hidden={tab !== "write"}
      >
        <Toolbar textareaId={id} mark={mark} upload={images.upload} />
        {area}
        <ImageDescriptions
          asked={images.toDescribe[0]}
          description={images.description}
          setDescription={images.setDescription}
          describe={images.describe}
          undescribed={images.toDescribe.length === 0 ? undescribedImages(value) : []}
          askAgain={(urls) => {
            images.setToDescribe(urls.map((url) => ({ url, name: "An image in the text" })));
          }}
          inputId={`${baseId}-alt`}
        />
      </div>
      <PreviewPanel preview={preview} ids={ids} hidden={tab !== "preview"} />
      <UploadsState uploads={images.uploads} refusals={images.refusals} baseId={baseId} />
      <CharacterCount id={countId} length={value.length} max={POST_DESCRIPTION_MAX} />
      {message}
    </div>
  );
}
