import { useEffect, useRef } from "react";
import { MenuLinks, type Category } from "./header.js";
import type { Viewer } from "../../../contract/site-host.js";
import type { NavigationLink } from "../../../contract/navigation.js";

/** The side menu of SPEC.md 2: hidden by default, closed by Escape, the backdrop or a link. */
export function SideMenu(props: {
  open: boolean;
  onClose: () => void;
  user: Viewer["user"] | undefined;
  categories: Category[];
  links: readonly NavigationLink[];
}) {
  const { open, onClose, user, categories } = props;
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("a, button")?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
    };
  }, [open, onClose]);

  if (!open) return null;
  return (
    <>
      <div className="backdrop" onClick={onClose} aria-hidden="true" />
      <nav
        className="side-menu"
        aria-label="Side menu"
        ref={panel}
        onClick={(e) => {
          if ((e.target as HTMLElement).closest("a")) onClose();
        }}
      >
        <MenuLinks user={user} categories={categories} links={props.links} onLogOut={onClose} />
      </nav>
    </>
  );
}
