import { Link, NavLink } from "react-router";
import { isExternalUrl, type NavigationLink } from "../../../contract/navigation.js";

/** A file on this site (a feed, the sitemap, an upload): not a page the client router knows. */
const isFile = (url: string) => /\.[a-z0-9]+$/i.test(url.split(/[?#]/)[0] ?? "");

/**
 * The links an admin put in a place (decision 032), as list items: a page of this site through
 * the client router (a header's marks the current page), a file or another site as a plain link.
 */
export function SiteLinks(props: { links: readonly NavigationLink[]; marksCurrent?: boolean }) {
  return props.links.map((link, index) => (
    <li key={`${String(index)}-${link.url}`}>
      {isExternalUrl(link.url) ? (
        <a href={link.url} rel="noopener">
          {link.label}
        </a>
      ) : isFile(link.url) ? (
        <a href={link.url}>{link.label}</a>
      ) : props.marksCurrent ? (
        <NavLink to={link.url} end>
          {link.label}
        </NavLink>
      ) : (
        <Link to={link.url}>{link.label}</Link>
      )}
    </li>
  ));
}
