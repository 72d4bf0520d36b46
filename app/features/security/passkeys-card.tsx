import { Form } from "react-router";
import { Field } from "../forms/field.js";
import { FormAlert } from "../forms/form-alert.js";
import type { ActionResult } from "../forms/form-state.js";
import { RowAction } from "../forms/row-action.js";
import { UseStamps } from "../../ui/use-stamps.js";
import { AddPasskey } from "./passkey-buttons.js";

/** A passkey as the security page lists it (core/auth/passkeys.ts, `presentPasskey`). */
interface Passkey {
  _id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The account's passkeys, and Add, or why passkeys cannot work on this site. */
export function PasskeysCard({
  passkeys,
  signedInRecently,
  blockedAt,
  result,
  busy,
}: {
  passkeys: Passkey[];
  signedInRecently: boolean;
  /** The IP address the site is served at, where passkeys cannot work. */
  blockedAt: string | undefined;
  /** The page action's answer: a refusal to remove one names it by `id`. */
  result: (ActionResult & { intent?: string; id?: string }) | undefined;
  busy: boolean;
}) {
  return (
    <section className="card form" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      {result?.intent?.startsWith("passkey") ? <FormAlert result={result} /> : null}
      <p>
        A passkey signs you in with your device&apos;s screen lock or a security key, with no
        password to type or steal.
      </p>
      {passkeys.length > 0 ? (
        <ul className="security-list">
          {passkeys.map((passkey) => (
            <li key={passkey._id}>
              <div>
                <strong>{passkey.name}</strong>
                <UseStamps
                  made="Added"
                  madeAt={passkey.createdAt}
                  lastUsedAt={passkey.lastUsedAt}
                />
              </div>
              {signedInRecently ? (
                <RowAction
                  intent="passkey-remove"
                  id={passkey._id}
                  label="Remove"
                  name={`Remove passkey ${passkey.name}`}
                  danger
                  busy={busy}
                />
              ) : (
                <RemoveWithPassword
                  id={passkey._id}
                  name={passkey.name}
                  error={
                    result &&
                    !result.ok &&
                    result.intent === "passkey-remove" &&
                    result.id === passkey._id
                      ? result.errors?.currentPassword
                      : undefined
                  }
                  busy={busy}
                />
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p>No passkeys yet.</p>
      )}
      {blockedAt === undefined ? (
        <AddPasskey />
      ) : (
        <p className="form-note">
          Passkeys need this site to be reached by its domain name, and it is served at an IP
          address ({blockedAt}). Ask your administrator to give it one.
        </p>
      )}
    </section>
  );
}

/**
 * A passkey's Remove once the sign-in is over 15 minutes old: the current password first, behind
 * a disclosure so the list stays a list (no script needed).
 */
function RemoveWithPassword(props: {
  id: string;
  name: string;
  error: string | undefined;
  busy: boolean;
}) {
  return (
    <details className="row-confirm" open={props.error !== undefined}>
      <summary className="button button-small button-danger">
        Remove<span className="visually-hidden"> passkey {props.name}</span>
      </summary>
      <Form method="post" className="form">
        <input type="hidden" name="intent" value="passkey-remove" />
        <input type="hidden" name="id" value={props.id} />
        <Field
          label="Current password"
          name="currentPassword"
          id={`field-remove-${props.id}`}
          type="password"
          autoComplete="current-password"
          error={props.error}
        />
        <button type="submit" className="button button-danger" disabled={props.busy}>
          Confirm removal<span className="visually-hidden"> of {props.name}</span>
        </button>
      </Form>
    </details>
  );
}
