import {
  NAVIGATION_LINKS_MAX,
  NAVIGATION_PLACES,
  type NavigationLink,
  type NavigationPlace,
  type SiteNavigation,
} from "../../../contract/navigation.js";

// What the site settings form's navigation rows send, and how the action reads them (decision
// 032): no React here, so the rules are tested on their own (tests/unit/navigation-form.test.ts).

/** A row's field in the site settings form: `nav-header-0-label`. */
export const navigationField = (place: NavigationPlace, index: number, part: "label" | "url") =>
  `nav-${place}-${String(index)}-${part}`;

/** The submit button that moves or removes a row: `navMove` = `header:2:up`. */
export const NAVIGATION_MOVE = "navMove";
export const MOVES = ["up", "down", "remove"] as const;

/** Present in a form that has the navigation rows (a page from before them sends none). */
export const NAVIGATION_FORM = "navForm";

/**
 * The navigation the form sent (decision 032), or undefined from a form without its rows (left as
 * it is): each place's rows in order, the move or removal a row's button asked for applied by
 * that row's number, then the rows with both fields blank dropped (no link). Rows only half
 * filled stay, for the rules to name what is missing.
 */
export function navigationFromForm(
  fields: Record<string, string | undefined>,
): SiteNavigation | undefined {
  if (fields[NAVIGATION_FORM] === undefined) return undefined;
  const [movedPlace, movedRow, move] = (fields[NAVIGATION_MOVE] ?? "").split(":");
  const lists = Object.fromEntries(
    NAVIGATION_PLACES.map((place) => {
      // One blank row more than the limit is ever shown; anything further is not this form's.
      const rows: NavigationLink[] = [];
      for (let index = 0; index <= NAVIGATION_LINKS_MAX; index++) {
        rows.push({
          label: fields[navigationField(place, index, "label")]?.trim() ?? "",
          url: fields[navigationField(place, index, "url")]?.trim() ?? "",
        });
      }
      const filled = rows.filter((row) => row.label !== "" || row.url !== "");
      const known = MOVES.some((one) => one === move);
      const target = known && place === movedPlace ? rows[Number(movedRow)] : undefined;
      const at = target ? filled.indexOf(target) : -1;
      const link = filled[at];
      if (link) {
        filled.splice(at, 1);
        const to = move === "up" ? at - 1 : move === "down" ? at + 1 : undefined;
        if (to !== undefined) filled.splice(Math.min(Math.max(to, 0), filled.length), 0, link);
      }
      return [place, filled];
    }),
  );
  return lists as unknown as SiteNavigation;
}
