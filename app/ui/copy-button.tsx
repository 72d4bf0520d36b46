import { useEffect, useRef, useState } from "react";

/** How long "Copied" stays before the button stands alone again. */
const SAID_MS = 2000;

const FAILED = "Copy failed: select the text and copy it";

/**
 * A button that copies `text` and says how it went. It needs a script and the clipboard API (a
 * secure context), so it appears only once the page has both; the text beside it stays
 * selectable either way.
 */
export function CopyButton(props: {
  text: string;
  /** The visible label. */
  label?: string;
  /** The accessible name, where the label alone does not say what is copied. */
  name?: string;
}) {
  const [canCopy, setCanCopy] = useState(false);
  const [said, setSaid] = useState("");
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    setCanCopy(typeof navigator.clipboard !== "undefined");
    return () => {
      clearTimeout(timer.current);
    };
  }, []);
  if (!canCopy) return null;
  const copy = () => {
    clearTimeout(timer.current);
    navigator.clipboard.writeText(props.text).then(
      () => {
        setSaid("Copied");
        timer.current = setTimeout(() => {
          setSaid("");
        }, SAID_MS);
      },
      // Stays until the next try: a failure that vanished could go unread.
      () => {
        setSaid(FAILED);
      },
    );
  };
  return (
    <span className="copy-button">
      <button type="button" className="button button-small" aria-label={props.name} onClick={copy}>
        {props.label ?? "Copy"}
      </button>
      <span role="status">{said}</span>
    </span>
  );
}
