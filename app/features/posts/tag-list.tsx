import { Link } from "react-router";
import { tagPath } from "../../../contract/page-paths.js";

/** A tag's page (its name as stored: lowercase, letters, digits and hyphens). */

/** A post's tags as links to their pages; nothing when it has none. */
export function TagList({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="tag-list" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <Link to={tagPath(tag)} className="tag-chip">
            #{tag}
          </Link>
        </li>
      ))}
    </ul>
  );
}
