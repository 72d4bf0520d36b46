import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
} from "@simplewebauthn/browser";
import { useEffect, useState } from "react";
import { useNavigation, useSubmit } from "react-router";
import { PASSKEY_NAME_MAX } from "../../../contract/account-security.js";
import { Field } from "../forms/field.js";

/** The browser's refusal in words; a cancelled prompt is not an error worth a scare. */
function problemOf(error: unknown) {
  if (error instanceof Error && error.name === "NotAllowedError") {
    return "The passkey prompt was closed before it finished";
  }
  return error instanceof Error && error.message
    ? error.message
    : "The passkey could not be used, please try again";
}

/** Passkeys need the browser's WebAuthn, known only once scripts run (undefined until then). */
function useWebAuthn() {
  const [supported, setSupported] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    setSupported(browserSupportsWebAuthn());
  }, []);
  return supported;
}

interface OptionsAnswer {
  options: Parameters<typeof startRegistration>[0]["optionsJSON"];
  challengeId: string;
}

async function optionsFrom(url: string, body?: FormData): Promise<OptionsAnswer> {
  const answer = await fetch(url, { method: "POST", body: body ?? null });
  const parsed = (await answer.json()) as Partial<OptionsAnswer> & { message?: string };
  if (!answer.ok || !parsed.options || !parsed.challengeId) {
    throw new Error(parsed.message ?? "The passkey could not be used, please try again");
  }
  return { options: parsed.options, challengeId: parsed.challengeId };
}

/** What stopped the passkey, by the button that started it. */
const Problem = ({ text }: { text: string | undefined }) =>
  text ? (
    <p role="alert" className="form-error">
      {text}
    </p>
  ) : null;

/** Says, without scripts, that passkeys need them (TOTP and passwords do not). */
const NeedsScript = () => (
  <noscript>
    <p className="field-hint">Passkeys need JavaScript, which is off in this browser.</p>
  </noscript>
);

/**
 * "Sign in with a passkey": the browser offers the passkeys it holds for this site (no e-mail
 * first), and the answer goes to the login page's action, which opens the session.
 */
export function PasskeySignIn({ next }: { next: string | undefined }) {
  const supported = useWebAuthn();
  const submit = useSubmit();
  const busy = useNavigation().state !== "idle";
  const [problem, setProblem] = useState<string>();
  if (supported === false) return null;
  return (
    <div className="passkey-action">
      <button
        type="button"
        className="button button-ghost"
        disabled={supported !== true || busy}
        onClick={() => {
          setProblem(undefined);
          void (async () => {
            try {
              const { options, challengeId } = await optionsFrom(
                "/api/auth/passkeys/login/options",
              );
              const credential = await startAuthentication({ optionsJSON: options });
              await submit(
                {
                  intent: "passkey",
                  credential: JSON.stringify(credential),
                  challengeId,
                  ...(next ? { next } : {}),
                },
                { method: "post" },
              );
            } catch (error) {
              setProblem(problemOf(error));
            }
          })();
        }}
      >
        Sign in with a passkey
      </button>
      <NeedsScript />
      <Problem text={problem} />
    </div>
  );
}

/**
 * "Add a passkey" on the security page: options from the page's own resource route (the session
 * is the cookie, which scripts cannot read), the browser makes the passkey, and the page's action
 * checks and keeps it.
 */
export function AddPasskey() {
  const supported = useWebAuthn();
  const submit = useSubmit();
  const busy = useNavigation().state !== "idle";
  const [problem, setProblem] = useState<string>();
  return (
    <form
      className="form passkey-add"
      onSubmit={(event) => {
        event.preventDefault();
        setProblem(undefined);
        const form = new FormData(event.currentTarget);
        void (async () => {
          try {
            const { options, challengeId } = await optionsFrom(
              "/settings/security/passkey-options",
              form,
            );
            const credential = await startRegistration({ optionsJSON: options });
            await submit(
              { intent: "passkey-add", credential: JSON.stringify(credential), challengeId },
              { method: "post" },
            );
          } catch (error) {
            setProblem(problemOf(error));
          }
        })();
      }}
    >
      <Field
        label="Name (optional)"
        name="name"
        id="field-passkey-name"
        maxLength={PASSKEY_NAME_MAX}
        placeholder="e.g. Work laptop"
        autoComplete="off"
      />
      <button
        type="submit"
        className="button"
        disabled={supported !== true || busy}
        aria-describedby={supported === false ? "passkey-unsupported" : undefined}
      >
        Add a passkey
      </button>
      {supported === false ? (
        <p id="passkey-unsupported" className="field-hint">
          This browser cannot make passkeys.
        </p>
      ) : null}
      <NeedsScript />
      <Problem text={problem} />
    </form>
  );
}
