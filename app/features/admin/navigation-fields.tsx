import {
  NAVIGATION_LABEL_MAX,
  NAVIGATION_LINKS_MAX,
  NAVIGATION_PLACES,
  NAVIGATION_URL_MAX,
  type NavigationLink,
  type NavigationPlace,
  type SiteNavigation,
} from "../../../contract/navigation.js";
import type { FieldErrors } from "../../../contract/field-errors.js";
import { Field } from "../forms/field.js";

const PLACE_NAMES: Record<NavigationPlace, string> = {
  header: "Header links",
  footer: "Footer links",
};

/** A row's field in the site settings form: `nav-header-0-label`. */
export const navigationField = (place: NavigationPlace, index: number, part: "label" | "url") =>
  `nav-${place}-${String(index)}-${part}`;

/** The submit button that moves or removes a row: `navMove` = `header:2:up`. */
export const NAVIGATION_MOVE = "navMove";
const MOVES = ["up", "down", "remove"] as const;

/**
 * The navigation the form sent (decision 032): each place's filled rows in order (a row with both
 * fields blank is no link), then the move or removal its button asked for. Rows only half filled
 * stay, for the rules to name what is missing.
 */
export function navigationFromForm(fields: Record<string, string | undefined>): SiteNavigation {
  const lists = Object.fromEntries(
    NAVIGATION_PLACES.map((place) => {
      const links: NavigationLink[] = [];
      // One blank row more than the limit is ever shown; anything further is not this form's.
      for (let index = 0; index <= NAVIGATION_LINKS_MAX; index++) {
        const label = fields[navigationField(place, index, "label")]?.trim() ?? "";
        const url = fields[navigationField(place, index, "url")]?.trim() ?? "";
        if (label !== "" || url !== "") links.push({ label, url });
      }
      return [place, links];
    }),
  ) as unknown as SiteNavigation;
  const [place, at, move] = (fields[NAVIGATION_MOVE] ?? "").split(":");
  const list = NAVIGATION_PLACES.find((known) => known === place);
  const index = Number(at);
  const links = list ? lists[list] : undefined;
  if (!links || !Number.isInteger(index) || index < 0 || index >= links.length) return lists;
  const link = links[index];
  if (!link) return lists;
  if (move === "remove") links.splice(index, 1);
  const to = move === "up" ? index - 1 : move === "down" ? index + 1 : -1;
  if (to >= 0 && to < links.length) {
    links.splice(index, 1);
    links.splice(to, 0, link);
  }
  return lists;
}

/**
 * The header's and footer's links in the site settings form: a label and an address a row, one
 * blank row to add a link, and Up, Down and Remove buttons that send the form (keyboard, touch and
 * no JavaScript alike; no drag). Moving or removing saves the form, as Save does.
 */
export function NavigationFields(props: { navigation: SiteNavigation; errors: FieldErrors }) {
  return NAVIGATION_PLACES.map((place) => {
    const links = props.navigation[place];
    const rows = links.length < NAVIGATION_LINKS_MAX ? [...links, { label: "", url: "" }] : links;
    return (
      <fieldset className="fieldset navigation-fields" key={place}>
        <legend>{PLACE_NAMES[place]}</legend>
        <p className="field-hint">
          At most {NAVIGATION_LINKS_MAX}. An address is a path on this site (/pages/about, /tag/go)
          or a full http(s) address. Empty a row to remove its link. Up, Down and Remove save the
          form, as Save does.
        </p>
        <ol className="navigation-rows">
          {rows.map((link, index) => {
            const name = link.label || `link ${String(index + 1)}`;
            const filled = index < links.length;
            return (
              <li key={`${String(index)}-${link.url}`} className="navigation-row">
                <Field
                  label={`Label ${String(index + 1)}`}
                  name={navigationField(place, index, "label")}
                  maxLength={NAVIGATION_LABEL_MAX}
                  defaultValue={link.label}
                  error={props.errors[`navigation.${place}.${String(index)}.label`]}
                />
                <Field
                  label={`Address ${String(index + 1)}`}
                  name={navigationField(place, index, "url")}
                  maxLength={NAVIGATION_URL_MAX}
                  placeholder="/pages/about"
                  defaultValue={link.url}
                  error={props.errors[`navigation.${place}.${String(index)}.url`]}
                />
                {filled ? (
                  <div className="navigation-moves">
                    {MOVES.map((move) =>
                      (move === "up" && index === 0) ||
                      (move === "down" && index === links.length - 1) ? null : (
                        <button
                          key={move}
                          type="submit"
                          name={NAVIGATION_MOVE}
                          value={`${place}:${String(index)}:${move}`}
                          className="button button-ghost button-small"
                          aria-label={`${move === "remove" ? "Remove" : `Move ${move}`} “${name}”`}
                        >
                          {move === "up" ? "Up" : move === "down" ? "Down" : "Remove"}
                        </button>
                      ),
                    )}
                  </div>
                ) : null}
              </li>
            );
          })}
        </ol>
        {props.errors[`navigation.${place}`] ? (
          <p className="field-error">{props.errors[`navigation.${place}`]}</p>
        ) : null}
      </fieldset>
    );
  });
}
