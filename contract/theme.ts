/**
 * The reader's colour theme (docs/decisions/014-dark-mode.md): an explicit light or dark, kept in
 * a cookie the server reads so the first HTML already carries it, or the system's setting (no
 * cookie, no attribute: the stylesheet follows `prefers-color-scheme`).
 */
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_COOKIE = "theme";

/** The theme a cookie's value names; anything else (none, a stray value) is the system's. */
export const themeOf = (value: string | null | undefined): Theme =>
  value === "light" || value === "dark" ? value : "system";

export const isTheme = (value: unknown): value is Theme =>
  typeof value === "string" && (THEMES as readonly string[]).includes(value);
