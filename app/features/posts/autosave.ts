import { useEffect, useRef, useState, type RefObject } from "react";

/** Quiet time after the last keystroke before a draft saves itself. */
const QUIET_MS = 2000;
/** The least time between two saves (the route allows 60 in 5 minutes per address). */
const EVERY_MS = 10_000;
/** Where a post's draft saves itself, and under which name it says whose draft it is. */
const POST_AUTOSAVE = { url: "/posts/autosave", idField: "postId" } as const;

/** Where a draft saves itself: a resource route taking the editor's fields (JSON answers). */
export interface AutosaveTarget {
  url: string;
  /** The field naming the draft saved (`postId`, `pageId`). */
  idField: string;
}

export type AutosaveState =
  | { kind: "idle" }
  | { kind: "waiting" }
  | { kind: "saving" }
  | { kind: "saved"; at: string }
  | { kind: "failed"; message: string; retry: boolean };

/** The form's fields as a save sends them: no file, no state, the draft and its last save. */
function fieldsOf(form: HTMLFormElement, target: AutosaveTarget, id: string, updatedAt: string) {
  const sent = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (typeof value !== "string" || name === "intent" || name === "status") continue;
    sent.append(name, value);
  }
  sent.set(target.idField, id);
  sent.set("updatedAt", updatedAt);
  return sent;
}

/**
 * Saves a draft to the server while its writer types, once they pause (and at most every 10 s),
 * with what happened to show. A dropped network is tried again when it is back; a save refused
 * because another tab or device saved meanwhile stops the saving (the browser's own copy of the
 * text, kept by the body editor, stays either way).
 */
export function useAutosave(
  form: RefObject<HTMLFormElement | null>,
  post: { _id: string; updatedAt: string },
  enabled: boolean,
  target: AutosaveTarget = POST_AUTOSAVE,
  /** Told the version each save made (whatever the state shown: more typing may follow it). */
  onSaved?: (updatedAt: string) => void,
) {
  const [state, setState] = useState<AutosaveState>({ kind: "idle" });
  const savedListener = useRef(onSaved);
  savedListener.current = onSaved;
  const version = useRef(post.updatedAt);
  const stopped = useRef(false);
  useEffect(() => {
    version.current = post.updatedAt;
    stopped.current = false;
  }, [post.updatedAt]);

  useEffect(() => {
    const element = form.current;
    if (!enabled || !element) return;
    // Changed by the events while a save is on its way: one object, read afresh after each await.
    const at: {
      timer: ReturnType<typeof setTimeout> | undefined;
      lastSave: number;
      dirty: boolean;
      inFlight: boolean;
      /** Set once the form is made again (after a save by its buttons): a late answer is ignored. */
      done: boolean;
    } = { timer: undefined, lastSave: 0, dirty: false, inFlight: false, done: false };
    // Read through a call, so what an event changed during a save's await is seen.
    const changedSince = () => at.dirty;
    const over = () => at.done;
    const waiting = () => at.timer !== undefined;

    const save = async () => {
      at.timer = undefined;
      if (stopped.current || at.inFlight || !at.dirty) return;
      at.inFlight = true;
      at.dirty = false;
      at.lastSave = Date.now();
      setState({ kind: "saving" });
      try {
        const response = await fetch(target.url, {
          method: "POST",
          body: fieldsOf(element, target, post._id, version.current),
          headers: { accept: "application/json" },
        });
        const body = (await response.json().catch(() => ({}))) as {
          updatedAt?: string;
          message?: string;
        };
        if (over()) return;
        if (response.ok && body.updatedAt) {
          version.current = body.updatedAt;
          savedListener.current?.(body.updatedAt);
          setState(changedSince() ? { kind: "waiting" } : { kind: "saved", at: body.updatedAt });
        } else if (response.status === 429 || response.status >= 500) {
          // Busy or failing for now: tried again later, as after a dropped network.
          at.dirty = true;
          setState({
            kind: "failed",
            message: `${body.message ?? "The server could not save this draft"}: tried again in a moment.`,
            retry: true,
          });
        } else {
          // Refused (a field the writer must fix, another tab's save): not tried again until the
          // writer changes something, and never after another tab's save.
          stopped.current = response.status === 409;
          setState({
            kind: "failed",
            message: body.message ?? "This draft could not be saved",
            retry: false,
          });
        }
      } catch {
        if (over()) return;
        at.dirty = true;
        setState({
          kind: "failed",
          message:
            "Offline: not saved yet. Your text stays in this browser and is saved when the network is back.",
          retry: true,
        });
      } finally {
        at.inFlight = false;
      }
      if (changedSince() && !stopped.current && !waiting()) schedule();
    };

    const schedule = () => {
      if (at.timer !== undefined) clearTimeout(at.timer);
      const wait = Math.max(QUIET_MS, at.lastSave + EVERY_MS - Date.now());
      at.timer = setTimeout(() => void save(), wait);
    };

    const changed = (event: Event) => {
      // The cover's file goes with the editor's buttons, not by itself.
      if (event.target instanceof HTMLInputElement && event.target.type === "file") return;
      if (stopped.current) return;
      at.dirty = true;
      // After the event has reached React: a render in between (a microtask after this
      // listener) would set the controlled field back before React read its new text.
      setTimeout(() => {
        setState((current) => (current.kind === "saving" ? current : { kind: "waiting" }));
      }, 0);
      schedule();
    };
    const online = () => {
      if (at.dirty) schedule();
    };
    // Sent by its buttons, the form saves everything itself: nothing is left to save by itself
    // (a save on its way still counts, should the buttons' save be refused).
    const sent = () => {
      if (at.timer !== undefined) clearTimeout(at.timer);
      at.timer = undefined;
      at.dirty = false;
    };
    element.addEventListener("input", changed);
    element.addEventListener("change", changed);
    element.addEventListener("submit", sent);
    window.addEventListener("online", online);
    return () => {
      sent();
      at.done = true;
      element.removeEventListener("input", changed);
      element.removeEventListener("change", changed);
      element.removeEventListener("submit", sent);
      window.removeEventListener("online", online);
    };
    // Again when the form is made again (after a save by its buttons): the listeners are on it.
  }, [form, post._id, post.updatedAt, enabled, target]);

  return state;
}
