import type { ReactNode } from "react";

/** A web address in a comment: http(s), up to the next space; trailing punctuation stays text. */
const LINK = /\bhttps?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'}]/g;

/**
 * A comment's text with its web addresses as links. Readers wrote them, so they carry
 * `rel="ugc nofollow"` (this site vouches for none of them) and `noopener`. Text is text: React
 * escapes it, nothing is inserted as HTML.
 */
export function CommentText({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const href = match[0];
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(
      <a key={match.index} href={href} rel="ugc nofollow noopener noreferrer">
        {href}
      </a>,
    );
    last = match.index + href.length;
  }
  if (parts.length === 0) return text;
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}
