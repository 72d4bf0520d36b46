import { useEffect, useId, useRef, type ReactNode } from "react";
import { CloseIcon } from "./icons.js";

/**
 * A modal on the native <dialog>: focus moves in and is trapped by the browser, Escape closes it,
 * and focus returns to the opener.
 */
export function Modal(props: {
  title: string;
  /**
   * The title's id, for a modal in a viewer's island (decision 021), which must not take one from
   * `useId` (it would differ rendered alone); useId's otherwise.
   */
  titleId?: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const generated = useId();
  const titleId = props.titleId ?? generated;
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) element.showModal();
    if (!props.open && element.open) element.close();
  }, [props.open]);
  return (
    <dialog ref={dialog} className="dialog modal" aria-labelledby={titleId} onClose={props.onClose}>
      {/* Its content exists only while open: a post with many comments carries no unused forms. */}
      {props.open && (
        <>
          <div className="modal-head">
            <h2 id={titleId}>{props.title}</h2>
            <button
              type="button"
              className="icon-button"
              aria-label="Close"
              onClick={props.onClose}
            >
              <CloseIcon />
            </button>
          </div>
          {props.children}
        </>
      )}
    </dialog>
  );
}
