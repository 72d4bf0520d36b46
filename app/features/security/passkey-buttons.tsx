import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type WebAuthnErrorCode,
} from "@simplewebauthn/browser";
import { useEffect, useState } from "react";
import { useNavigation, useSubmit } from "react-router";
import { PASSKEY_NAME_MAX } from "../../../contract/security-messages.js";
import { Field } from "../forms/field.js";

const COULD_NOT = "The passkey could not be used, please try again";

/** The site's own refusal (a JSON message), already written for people. */
class SiteRefusal extends Error {}

/** What the browser's WebAuthn errors mean to the person at it; the rest is COULD_NOT. */
const BROWSER_PROBLEMS: Partial<Record<WebAuthnErrorCode, string>> = {
  // Opened at an IP address (or a name that is not a domain), or at another name than the site's.
  ERROR_INVALID_DOMAIN: "Passkeys need this site to be reached by its domain name",
  ERROR_INVALID_RP_ID: "Passkeys work only at this site's own address, the one its links use",
  ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED: "This device already has a passkey for your account",
  ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT:
    "This device or security key cannot check a PIN or a fingerprint, which passkeys here need",
  ERROR_AUTHENTICATOR_MISSING_DISCOVERABLE_CREDENTIAL_SUPPORT:
    "This security key cannot store a passkey: try your phone or computer instead",
};

/**
 * A refusal in words, never the browser's own text (which names APIs and hosts); a cancelled
 * prompt is not an error worth a scare.
 */
function problemOf(error: unknown) {
  if (error instanceof SiteRefusal) return error.message;
  const known = error instanceof WebAuthnError ? BROWSER_PROBLEMS[error.code] : undefined;
  if (known) return known;
  if (error instanceof Error && error.name === "NotAllowedError") {
    return "The passkey prompt was closed before it finished";
  }
  return COULD_NOT;
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
    throw new SiteRefusal(parsed.message ?? COULD_NOT);
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
