import { useSaidInToast } from "../../ui/toasts.js";
import type { ActionResult } from "./form-state.js";

/**
 * The server's refusal by the form, where the eye is. With JavaScript it shows as a toast
 * (SPEC.md 9) and is said here only once the toast has gone.
 */
export function FormAlert({ result }: { result: ActionResult | undefined }) {
  const toasted = useSaidInToast(result?.message);
  if (!result || result.ok || !result.message || toasted) return null;
  // Said already under the field it is about: once on the page is enough.
  if (Object.values(result.errors ?? {}).includes(result.message)) return null;
  return (
    <p role="alert" className="form-error">
      {result.message}
    </p>
  );
}
