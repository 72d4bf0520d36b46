import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { ThemeIcon } from "../../ui/icons.js";
import { isTheme, THEMES, type Theme } from "../../../contract/theme.js";

const LABELS: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** The switch's fetcher, shared by the menu (which posts) and the layout (which shows it at once). */
const THEME_FETCHER = "theme";

/**
 * The theme the page shows: the one just chosen while its answer is on the way, else the one the
 * server rendered from the cookie.
 */
export function useShownTheme(rendered: Theme | undefined): Theme {
  const fetcher = useFetcher({ key: THEME_FETCHER });
  const chosen = fetcher.formData?.get("theme");
  return isTheme(chosen) ? chosen : (rendered ?? "system");
}

/**
 * The theme switch in the header: light, dark or the system's setting, remembered in a cookie by
 * /theme. A details menu of submit buttons, so it works without JavaScript (the page comes back
 * in the chosen theme); with it, the choice applies in place.
 */
export function ThemeMenu({ theme }: { theme: Theme }) {
  const fetcher = useFetcher({ key: THEME_FETCHER });
  const menu = useRef<HTMLDetailsElement>(null);
  const shown = useShownTheme(theme);
  // Set once hydrated: the answer can then come back in place instead of by a redirect.
  const [inPlace, setInPlace] = useState(false);
  useEffect(() => {
    setInPlace(true);
  }, []);
  return (
    <details className="theme-menu" ref={menu}>
      <summary>
        <ThemeIcon />
        <span className="visually-hidden">Theme: {LABELS[shown]}</span>
      </summary>
      <fetcher.Form
        method="post"
        action="/theme"
        className="dropdown-menu dropdown-menu-end"
        onSubmit={() => {
          if (menu.current) menu.current.open = false;
        }}
      >
        {inPlace ? <input type="hidden" name="inPlace" value="1" /> : null}
        {THEMES.map((option) => (
          <button
            key={option}
            type="submit"
            name="theme"
            value={option}
            aria-pressed={option === shown}
          >
            {LABELS[option]}
          </button>
        ))}
      </fetcher.Form>
    </details>
  );
}
