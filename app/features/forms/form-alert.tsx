import type { ActionResult } from "./form-state.js";

/**
 * The server's refusal in the page itself, for readers without JavaScript: with it, the same
 * message shows as a toast instead.
 */
export function FormAlert({ result }: { result: ActionResult | undefined }) {
  if (!result || result.ok || !result.message) return null;
  return (
    <noscript>
      <p role="alert" className="form-error">
        {result.message}
      </p>
    </noscript>
  );
}
