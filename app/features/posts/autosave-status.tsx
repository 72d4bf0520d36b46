import type { AutosaveState } from "./autosave.js";
import { LocalTime } from "./publish-controls.js";

/** What became of the draft's last changes; read out by screen readers as it changes. */
export function AutosaveStatus({ state }: { state: AutosaveState }) {
  const text =
    state.kind === "idle"
      ? "Changes to this draft save themselves as you write."
      : state.kind === "waiting"
        ? "Unsaved changes…"
        : state.kind === "saving"
          ? "Saving…"
          : state.kind === "saved"
            ? "Saved"
            : state.message;
  return (
    <p
      role="status"
      className={`autosave-status${state.kind === "failed" ? " autosave-failed" : ""}`}
    >
      {text}
      {state.kind === "saved" ? (
        <>
          {" "}
          <LocalTime iso={state.at} />
        </>
      ) : null}
    </p>
  );
}
