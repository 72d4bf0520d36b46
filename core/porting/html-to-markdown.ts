import TurndownService from "turndown";

/**
 * HTML of another platform as Markdown (CommonMark + GFM, as this site writes bodies). Scripts,
 * styles, frames and forms are dropped with their content; whatever HTML is left is still
 * sanitized by the renderer (core/posts/body.ts) like any body.
 */
let service: TurndownService | undefined;

export function htmlToMarkdown(html: string): string {
  service ??= createService();
  return service.turndown(html).trim();
}

function createService() {
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
    hr: "---",
  });
  turndown.remove(["script", "style", "iframe", "noscript", "form", "object", "embed", "head"]);
  // A figure is its image and its caption, one after the other.
  turndown.addRule("figcaption", {
    filter: "figcaption",
    replacement: (content) => `\n\n*${content.trim()}*\n\n`,
  });
  return turndown;
}
