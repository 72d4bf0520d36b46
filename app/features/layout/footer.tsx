import { SiteLinks } from "./site-links.js";
import {
  SOCIAL_NETWORK_NAMES,
  SOCIAL_NETWORKS,
  type SocialNetwork,
} from "../../../contract/social-networks.js";
import {
  FacebookIcon,
  GithubIcon,
  LinkedinIcon,
  MailIcon,
  TwitterIcon,
  type IconProps,
} from "../../ui/icons.js";
import type { SiteInfo } from "../../../contract/site-host.js";

const ICONS: Record<SocialNetwork, (props: IconProps) => React.JSX.Element> = {
  github: GithubIcon,
  linkedin: LinkedinIcon,
  x: TwitterIcon,
  facebook: FacebookIcon,
};

export function Footer({ site }: { site: SiteInfo }) {
  return (
    <footer className="site-footer">
      <div className="container footer-inner">
        <nav aria-label="Footer">
          <ul className="footer-links">
            {/* The admin's links (decision 032); until set, Home, Posts and RSS. */}
            <SiteLinks links={site.navigation.footer} />
            <li>
              <a href={`mailto:${site.contactEmail}`}>Contact</a>
            </li>
          </ul>
        </nav>
        {/* The site's own profiles, as an admin set them in the site settings (none by default). */}
        <ul className="social-links" aria-label="Social links">
          {SOCIAL_NETWORKS.map((network) => {
            const url = site.socialLinks[network];
            if (!url) return null;
            const Icon = ICONS[network];
            return (
              <li key={network}>
                <a
                  href={url}
                  aria-label={SOCIAL_NETWORK_NAMES[network]}
                  rel="noopener noreferrer me"
                >
                  <Icon />
                </a>
              </li>
            );
          })}
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
