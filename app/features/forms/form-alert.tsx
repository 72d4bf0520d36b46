import type { ActionResult } from "./form-state.js";

/**
 * The server's refusal by the form, where the eye is (with JavaScript it also shows as a toast).
 */
export function FormAlert({ result }: { result: ActionResult | undefined }) {
  if (!result || result.ok || !result.message) return null;
  // Said already under the field it is about: once on the page is enough.
  if (Object.values(result.errors ?? {}).includes(result.message)) return null;
  return (
    <p role="alert" className="form-error">
      {result.message}
    </p>
  );
}
