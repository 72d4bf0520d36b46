import { FacebookIcon, GithubIcon, LinkedinIcon, MailIcon, WhatsappIcon } from "../../ui/icons.js";

const SOCIAL_ICONS = {
  linkedin: LinkedinIcon,
  github: GithubIcon,
  gmail: MailIcon,
  facebook: FacebookIcon,
  whatsapp: WhatsappIcon,
} as const;

function socialHref(name: keyof typeof SOCIAL_ICONS, url: string) {
  if (name === "gmail") return url.startsWith("mailto:") ? url : `mailto:${url}`;
  if (name === "whatsapp") return `https://wa.me/${url.replace(/[^\d]/g, "")}`;
  return url;
}

export function SocialLinks({
  links,
}: {
  links: { name: keyof typeof SOCIAL_ICONS; url: string }[];
}) {
  if (links.length === 0) return null;
  return (
    <ul className="social-links" aria-label="Social links">
      {links.map((link) => {
        const Icon = SOCIAL_ICONS[link.name];
        return (
          <li key={`${link.name}-${link.url}`}>
            <a
              href={socialHref(link.name, link.url)}
              aria-label={link.name}
              rel="noopener noreferrer nofollow"
            >
              <Icon />
            </a>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The head of a person's page (their profile, their public author page): photo, name, bio and
 * links, then what the page adds (counts, buttons) inside the same section.
 */
export function PersonHeader(props: {
  person: {
    username: string;
    bio: string;
    profilePhoto: { url: string };
    socialMedia: { name: keyof typeof SOCIAL_ICONS; url: string }[];
  };
  children?: React.ReactNode;
}) {
  const { person } = props;
  return (
    <section className="profile">
      <img
        src={person.profilePhoto.url}
        alt={person.username}
        width="160"
        height="160"
        className="intro-photo"
      />
      <h1>{person.username}</h1>
      {person.bio ? <p className="lead">{person.bio}</p> : null}
      <SocialLinks links={person.socialMedia} />
      {props.children}
    </section>
  );
}
