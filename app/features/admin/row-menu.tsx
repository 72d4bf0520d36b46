import { useEffect, useRef, type ReactNode } from "react";
import { useLocation } from "react-router";
import { ChevronDownIcon } from "../../ui/icons.js";

/**
 * A table row's actions behind one "Actions" button, so the row stays one line. A details
 * disclosure: it opens without JavaScript, and the shared `name` keeps one row's menu open at a
 * time. Once an action has answered (the page's location changes), it closes.
 */
export function RowMenu(props: {
  /** Whose actions these are, for screen readers: "Actions for ada". */
  rowName: string;
  children: ReactNode;
}) {
  const menu = useRef<HTMLDetailsElement>(null);
  const { key } = useLocation();
  const shownKey = useRef(key);
  useEffect(() => {
    if (shownKey.current === key) return;
    shownKey.current = key;
    if (menu.current) menu.current.open = false;
  }, [key]);
  return (
    <details className="row-menu" name="row-menu" ref={menu}>
      <summary className="button button-small button-ghost">
        Actions<span className="visually-hidden"> for {props.rowName}</span>
        <ChevronDownIcon />
      </summary>
      <div className="row-menu-items">{props.children}</div>
    </details>
  );
}
