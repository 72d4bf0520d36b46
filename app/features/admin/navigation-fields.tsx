import {
  NAVIGATION_LABEL_MAX,
  NAVIGATION_LINKS_MAX,
  NAVIGATION_PLACES,
  NAVIGATION_URL_MAX,
  type NavigationPlace,
  type SiteNavigation,
} from "../../../contract/navigation.js";
import type { FieldErrors } from "../../../contract/field-errors.js";
import { Field } from "../forms/field.js";
import { MOVES, NAVIGATION_FORM, NAVIGATION_MOVE, navigationField } from "./navigation-form.js";

const PLACE_NAMES: Record<NavigationPlace, string> = {
  header: "Header links",
  footer: "Footer links",
};

/**
 * The header's and footer's links in the site settings form: a label and an address a row, one
 * blank row to add a link, and Up, Down and Remove buttons that send the form (keyboard, touch and
 * no JavaScript alike; no drag). Moving or removing saves the form, as Save does.
 */
export function NavigationFields(props: { navigation: SiteNavigation; errors: FieldErrors }) {
  const places = NAVIGATION_PLACES.map((place) => {
    const links = props.navigation[place];
    const rows = links.length < NAVIGATION_LINKS_MAX ? [...links, { label: "", url: "" }] : links;
    return (
      <fieldset className="fieldset navigation-fields" key={place}>
        <legend>{PLACE_NAMES[place]}</legend>
        <p className="field-hint">
          At most {NAVIGATION_LINKS_MAX}. An address is a path on this site (/posts, /tag/go) or a
          full http(s) address. Empty a row to remove its link. Up, Down and Remove save the form,
          as Save does.
        </p>
        <ol className="navigation-rows">
          {rows.map((link, index) => {
            const name = link.label || `link ${String(index + 1)}`;
            const filled = index < links.length;
            return (
              <li key={`${String(index)}|${link.label}|${link.url}`} className="navigation-row">
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
                  placeholder="/tag/go"
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
  return (
    <>
      <input type="hidden" name={NAVIGATION_FORM} value="1" />
      {places}
    </>
  );
}
