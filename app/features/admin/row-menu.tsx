import type { ReactNode } from "react";
import { ChevronDownIcon } from "../../ui/icons.js";
import { DisclosureMenu } from "../../ui/disclosure-menu.js";

/** A table row's actions behind one "Actions" button, so the row stays one line. */
export function RowMenu(props: {
  /** Whose actions these are, for screen readers: "Actions for ada". */
  rowName: string;
  children: ReactNode;
}) {
  return (
    <DisclosureMenu
      className="row-menu"
      group="row-menu"
      label={
        <>
          Actions<span className="visually-hidden"> for {props.rowName}</span>
          <ChevronDownIcon />
        </>
      }
    >
      {props.children}
    </DisclosureMenu>
  );
}
