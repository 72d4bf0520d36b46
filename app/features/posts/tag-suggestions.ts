/**
 * The browser's suggestions for a tags field holding `text`: each known tag not yet there, after
 * what is typed before the tag being typed ("rust, "), since the browser matches a suggestion
 * against the whole field. So it suggests for every tag, not only the first.
 */
export function tagSuggestions(text: string, known: readonly string[]) {
  const cut = text.lastIndexOf(",") + 1;
  const chosen = text
    .slice(0, cut)
    .split(",")
    .map((tag) => tag.trim().toLowerCase())
    .filter(Boolean);
  const before = chosen.length === 0 ? "" : `${chosen.join(", ")}, `;
  return known.filter((name) => !chosen.includes(name)).map((name) => `${before}${name}`);
}
