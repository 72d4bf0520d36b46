import { useEffect, useRef } from "react";
import { Form, Link } from "react-router";
import type { Viewer } from "../../context.js";
import { categoryPath, type Category } from "./header.js";

/**
 * The entries of SPEC.md 2's side menu: in the sliding panel, and on the menu page that the menu
 * button leads to without JavaScript.
 */
export function MenuLinks(props: {
  user: Viewer["user"] | undefined;
  categories: Category[];
  /** The menu page shows the categories at once; the panel keeps them folded. */
  categoriesOpen?: boolean;
  onLogOut?: () => void;
}) {
  const { user, categories } = props;
  return (
    <ul>
      <li>
        <Link to="/">Home</Link>
      </li>
      <li>
        <details open={props.categoriesOpen}>
          <summary>Categories</summary>
          <ul>
            {categories.length === 0 ? <li className="muted">No categories yet</li> : null}
            {categories.map((category) => (
              <li key={category._id}>
                <Link to={categoryPath(category.title)}>{category.title}</Link>
              </li>
            ))}
          </ul>
        </details>
      </li>
      <li>
        <Link to="/posts">Posts</Link>
      </li>
      {user?.isAdmin ? (
        <>
          <li>
            <Link to="/posts/create-post">Create Post</Link>
          </li>
          <li>
            <Link to="/admin-dashboard">Dashboard</Link>
          </li>
        </>
      ) : null}
      {user ? (
        <>
          <li>
            <Link to={`/profile/${user._id}`}>Profile</Link>
          </li>
          <li>
            <Form method="post" action="/logout" onSubmit={props.onLogOut}>
              <button type="submit" className="link-button">
                Log Out
              </button>
            </Form>
          </li>
        </>
      ) : null}
    </ul>
  );
}

/** The side menu of SPEC.md 2: hidden by default, closed by Escape, the backdrop or a link. */
export function SideMenu(props: {
  open: boolean;
  onClose: () => void;
  user: Viewer["user"] | undefined;
  categories: Category[];
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
        <MenuLinks user={user} categories={categories} onLogOut={onClose} />
      </nav>
    </>
  );
}
