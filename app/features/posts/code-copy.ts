import { useEffect, type RefObject } from "react";

/** How long a button says what happened before it reads "Copy" again. */
const SAID_MS = 2000;

/**
 * Puts a "Copy" button above each code block of a rendered body, once the page runs scripts
 * (without them the blocks are as written, and selectable). The body is the server's HTML, so the
 * buttons are added to it here rather than rendered: `html` makes them again when it changes.
 */
export function useCodeCopyButtons(body: RefObject<HTMLElement | null>, html: string) {
  useEffect(() => {
    const root = body.current;
    if (!root || typeof navigator === "undefined" || !("clipboard" in navigator)) return;
    const added: HTMLElement[] = [];
    const timers = new Set<ReturnType<typeof setTimeout>>();
    for (const block of root.querySelectorAll("pre")) {
      const tools = document.createElement("div");
      tools.className = "code-tools";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "copy-code";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy the code");
      const say = (text: string) => {
        button.textContent = text;
        const timer = setTimeout(() => {
          button.textContent = "Copy";
          timers.delete(timer);
        }, SAID_MS);
        timers.add(timer);
      };
      button.addEventListener("click", () => {
        const code = block.querySelector("code") ?? block;
        navigator.clipboard.writeText(code.textContent).then(
          () => {
            say("Copied");
          },
          () => {
            say("Copy failed: select the code instead");
          },
        );
      });
      tools.append(button);
      block.before(tools);
      added.push(tools);
    }
    return () => {
      for (const timer of timers) clearTimeout(timer);
      for (const tools of added) tools.remove();
    };
  }, [body, html]);
}
