import { Link } from "react-router";
import type { SiteInfo } from "../../context.js";
import { GithubIcon, LinkedinIcon, MailIcon } from "../../ui/icons.js";

export function Footer({ site }: { site: SiteInfo }) {
  return (
    <footer className="site-footer">
      <div className="container footer-inner">
        <nav aria-label="Footer">
          <ul className="footer-links">
            <li>
              <Link to="/">Home</Link>
            </li>
            <li>
              <Link to="/posts">Posts</Link>
            </li>
            <li>
              <a href="/rss.xml">RSS</a>
            </li>
            <li>
              <a href={`mailto:${site.contactEmail}`}>Contact</a>
            </li>
          </ul>
        </nav>
        <ul className="social-links" aria-label="Social links">
          <li>
            <a href="https://github.com/" aria-label="GitHub" rel="noopener noreferrer">
              <GithubIcon />
            </a>
          </li>
          <li>
            <a href="https://www.linkedin.com/" aria-label="LinkedIn" rel="noopener noreferrer">
              <LinkedinIcon />
            </a>
          </li>
          <li>
            <a href={`mailto:${site.contactEmail}`} aria-label="E-mail">
              <MailIcon />
            </a>
          </li>
        </ul>
        <p className="muted">© {site.title}</p>
      </div>
    </footer>
  );
}
