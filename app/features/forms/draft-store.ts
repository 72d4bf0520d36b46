/**
 * Unsaved writing kept in the browser (localStorage) while it is typed, so a closed tab, a crash
 * or a dropped network loses nothing; one draft per form: a new post, or the edit of one post.
 */
export interface KeptDraft {
  title: string;
  description: string;
  /** The form's other choices by field name (category, tags...): drafts kept before have none. */
  fields: Record<string, string>;
  /** When it was last kept (ISO time). */
  savedAt: string;
}

const PREFIX = "blog:draft:";

/** The key of a form's draft: `create`, or `edit:<post id>`. */
export const draftKey = (postId: string | undefined) =>
  `${PREFIX}${postId === undefined ? "create" : `edit:${postId}`}`;

/** The key of a static page's draft: `page:new`, or `page:<page id>` (decision 032). */
export const pageDraftKey = (pageId: string | undefined) => `${PREFIX}page:${pageId ?? "new"}`;

/** Storage may be missing or refused (private windows, a full quota): writing then just goes on. */
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

export function readDraft(key: string): KeptDraft | undefined {
  try {
    const raw = storage()?.getItem(key);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<Record<keyof KeptDraft, unknown>>;
    return typeof parsed.description === "string" &&
      typeof parsed.title === "string" &&
      typeof parsed.savedAt === "string"
      ? {
          title: parsed.title,
          description: parsed.description,
          fields: textsOf(parsed.fields),
          savedAt: parsed.savedAt,
        }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The string entries of what was stored as `fields` (anything else, as from an older draft, none). */
function textsOf(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
}

export function keepDraft(key: string, draft: Omit<KeptDraft, "savedAt">) {
  try {
    storage()?.setItem(key, JSON.stringify({ ...draft, savedAt: new Date().toISOString() }));
  } catch {
    // Over quota or refused: the text is still in the form.
  }
}

export function dropDraft(key: string) {
  try {
    storage()?.removeItem(key);
  } catch {
    // Nothing kept, nothing to drop.
  }
}
