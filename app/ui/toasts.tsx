import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useLocation } from "react-router";

/** SPEC.md 9: toasts top right, closing by themselves after 5000 ms. */
const TOAST_MS = 5000;

/** info: a refusal that is the next step rather than a mistake (log in before verifying). */
type Kind = "success" | "error" | "info";
interface Toast {
  id: number;
  kind: Kind;
  text: string;
  /** The page it was said on. */
  path: string;
}

/** Exported for islands (features/viewer), which carry it into their own renders. */
export const ToastContext = createContext<(kind: Kind, text: string) => void>(() => undefined);

export const useToast = () => useContext(ToastContext);

/** The texts of the toasts on screen now, so forms do not say them a second time. */
const ShownTextsContext = createContext<ReadonlySet<string>>(new Set());

/**
 * Whether `text` is on screen as a toast now (SPEC.md 9 toasts a failed call's message): a form's
 * alert or a field's message then keeps out of sight (issue 50: one message, in one place) and
 * comes back once the toast has gone, if it still holds.
 */
export const useSaidInToast = (text: string | undefined) => {
  const shown = useContext(ShownTextsContext);
  return text !== undefined && shown.has(text);
};

/** At most this many at once: older ones give way rather than pile up over the page. */
const TOASTS_SHOWN = 3;

export function ToastProvider({ children }: { children: React.ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const dismiss = useCallback((id: number) => {
    setToasts((current) => current.filter((toast) => toast.id !== id));
  }, []);
  // A refusal is about the page it was made on: going elsewhere takes it away (it is kept with
  // that page's path and shown there only).
  const { pathname } = useLocation();
  const show = useCallback(
    (kind: Kind, text: string) => {
      next.current += 1;
      const id = next.current;
      // The same message again (a second wrong password) replaces the first, not stacks on it;
      // a success ends the refusals before it, which no longer hold.
      setToasts((current) =>
        [
          ...current.filter(
            (toast) => toast.text !== text && !(kind === "success" && toast.kind === "error"),
          ),
          { id, kind, text, path: window.location.pathname },
        ].slice(-TOASTS_SHOWN),
      );
      setTimeout(() => {
        dismiss(id);
      }, TOAST_MS);
    },
    [dismiss],
  );
  const value = useMemo(() => show, [show]);
  const shown = useMemo(
    () => toasts.filter((toast) => toast.kind !== "error" || toast.path === pathname),
    [toasts, pathname],
  );
  const texts = useMemo(() => new Set(shown.map((toast) => toast.text)), [shown]);
  return (
    <ToastContext.Provider value={value}>
      <ShownTextsContext.Provider value={texts}>{children}</ShownTextsContext.Provider>
      <div className="toasts" role="status" aria-live="polite">
        {shown.map((toast) => (
          <div key={toast.id} className={`toast toast-${toast.kind}`}>
            <span>{toast.text}</span>
            <button
              type="button"
              className="icon-button"
              aria-label="Dismiss"
              onClick={() => {
                dismiss(toast.id);
              }}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** Shows a server answer's message once, when a new one arrives (a `notice` as information). */
export function useToastOn(
  result: { message?: string; ok?: boolean; notice?: string } | undefined,
) {
  const toast = useToast();
  useEffect(() => {
    if (result?.notice) toast("info", result.notice);
    else if (result?.message) toast(result.ok ? "success" : "error", result.message);
  }, [result, toast]);
}
