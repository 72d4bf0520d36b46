import { useEffect, useRef, type ReactNode } from "react";
import { useLocation } from "react-router";

/**
 * A button that opens a panel of actions: a details disclosure, so it opens without JavaScript.
 * Disclosures given the same `group` open one at a time; once an action has answered (the page's
 * location changes) the panel closes. The post owner's "More" and a table row's "Actions".
 */
export function DisclosureMenu(props: {
  /** The button's content. */
  label: ReactNode;
  /** The disclosure's class; its panel's is this with `-panel`. */
  className: string;
  group?: string;
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
    <details className={props.className} name={props.group} ref={menu}>
      <summary className="button button-small button-ghost">{props.label}</summary>
      <div className={`${props.className}-panel`}>{props.children}</div>
    </details>
  );
}
