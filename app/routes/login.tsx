import { data, Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { securityMessages } from "../../contract/security-messages.js";
import {
  authMessages,
  findUserByEmail,
  finishSignInOnSite,
  loginWithPasskey,
  signInOnSite,
} from "../../core/auth/auth-service.js";
import { invalid } from "../../core/shared/errors.js";
import { servedAtAddress } from "../../core/auth/relying-party.js";
import { signupProof } from "../../core/auth/signup-proof.js";
import { requireVisitor } from "../features/auth/guards.server.js";
import { returnPath } from "../features/auth/return-path.js";
import {
  clearedSignInStepCookie,
  readSignInStep,
  sessionCookie,
  signInStepCookie,
  signupCookie,
  withSetCookies,
} from "../features/auth/session-cookie.server.js";
import { passkeyAnswer } from "../features/security/passkey-answer.server.js";
import { PasskeySignIn } from "../features/security/passkey-buttons.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation, type ActionResult } from "../features/forms/form-state.js";
import { pageMeta } from "../meta.js";
import { dateTime } from "../ui/format.js";
import { useSaidInToast, useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/login";

export function loader({ context, request }: Route.LoaderArgs) {
  requireVisitor(context);
  // The page is shared by every visitor (a cached render): nothing of the request's cookies
  // decides what it shows. The code step is the action's answer.
  return {
    site: context.site,
    next: returnPath(new URL(request.url).searchParams.get("next")),
    // No passkey button where passkeys cannot work: on a site served at an IP address.
    passkeys: servedAtAddress(context.site.publicUrl) === undefined,
  };
}

/**
 * The page's answer once a session is open: on to where the reader was going; after the code
 * step, the pending sign-in's cookie goes.
 */
function signedIn(token: string, next: string | undefined, secure: boolean, afterCode = false) {
  const headers = new Headers();
  headers.append("Set-Cookie", sessionCookie(token, secure));
  if (afterCode) headers.append("Set-Cookie", clearedSignInStepCookie(secure));
  return redirect(returnPath(next) ?? "/", { headers });
}

export async function action({ request, context }: Route.ActionArgs) {
  requireVisitor(context);
  const fields = await formFields(request);
  const secure = context.secureCookies;
  if (fields.intent === "restart") {
    return redirect("/login", { headers: { "Set-Cookie": clearedSignInStepCookie(secure) } });
  }
  const tooMany = await limited(context, "login");
  if (tooMany) return tooMany;
  const userAgent = request.headers.get("user-agent") ?? undefined;
  const { deps } = context;
  if (fields.intent === "code") {
    const pending = readSignInStep(request.headers.get("cookie"), secure);
    const result = await attempt(async () => {
      if (!pending) throw invalid(securityMessages.signInExpired);
      return finishSignInOnSite(deps, pending, fields, userAgent);
    });
    if (result.ok) return signedIn(result.value.token, fields.next, secure, true);
    if (result.message === securityMessages.signInExpired) {
      return data(result, {
        status: result.status,
        headers: { "Set-Cookie": clearedSignInStepCookie(secure) },
      });
    }
    return fail({ ...result, intent: "code" });
  }
  if (fields.intent === "passkey") {
    const result = await attempt(async () =>
      loginWithPasskey(deps, passkeyAnswer(fields), userAgent),
    );
    return result.ok ? signedIn(result.value.token, fields.next, secure) : fail(result);
  }
  const result = await attempt(async () => signInOnSite(deps, fields, userAgent));
  if (!result.ok) {
    // Not verified yet: not a mistake but the next step, said once by the form, with the address
    // the new link went to.
    if (result.status === 403 && result.message === authMessages.registered) {
      const user = await findUserByEmail(deps, fields.email ?? "");
      const proof = user ? await signupProof(deps.db, user.id, deps.clock()) : undefined;
      return data(
        { ok: false, notice: result.message, sentTo: fields.email ?? "", errors: {} },
        proof ? { headers: { "Set-Cookie": signupCookie(proof, secure) } } : {},
      );
    }
    return fail(result);
  }
  if ("pending" in result.value) {
    return data(
      { ok: true as const, step: "code" as const, errors: {} },
      { headers: { "Set-Cookie": signInStepCookie(result.value.pending, secure) } },
    );
  }
  return signedIn(result.value.signedIn.token, fields.next, secure);
}

/** The session or signup-proof cookie the loader or action set (see withSetCookies). */
export const headers: Route.HeadersFunction = withSetCookies;

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Login",
    description: "Log in to your account.",
    path: "/login",
  });

export default function Login({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../contract/auth.js").then((m) => m.LoginSchema),
    result?.errors,
  );
  useToastOn(result);
  const noticeToasted = useSaidInToast(result && "notice" in result ? result.notice : undefined);
  const codeStep =
    result !== undefined && ("step" in result || ("intent" in result && result.intent === "code"));
  if (codeStep) {
    return (
      <section className="form-page">
        <h1>Two-factor sign-in</h1>
        <SecondFactorForm result={result} next={loaderData.next} busy={busy} />
      </section>
    );
  }
  const details = result && "details" in result ? result.details : undefined;
  const suspension = details
    ? { reason: stringOf(details.reason), suspendedUntil: stringOf(details.suspendedUntil) }
    : undefined;
  return (
    <section className="form-page">
      <h1>Log in to your account</h1>
      <Form method="post" noValidate {...form} className="card form">
        {result && "notice" in result ? (
          <div role="status" className="form-note">
            {/* SPEC's words are the toast's while it shows: said once (issue 50). */}
            {noticeToasted ? null : <p>{result.notice}</p>}
            <p>
              A new link is on its way to <strong>{result.sentTo}</strong>. Open it to finish
              signing up: it signs you in.
            </p>
          </div>
        ) : (
          <FormAlert result={result} />
        )}
        {suspension ? (
          <div className="form-note suspension-terms">
            {suspension.reason ? (
              <p>
                Reason: <q>{suspension.reason}</q>
              </p>
            ) : null}
            <p>
              {suspension.suspendedUntil ? (
                <>
                  It ends on{" "}
                  <time dateTime={suspension.suspendedUntil}>
                    {dateTime(suspension.suspendedUntil)}
                  </time>
                  ; you can log in again from then.
                </>
              ) : (
                "It lasts until an admin lifts it."
              )}
            </p>
            <p>
              To answer, write to{" "}
              <a href={`mailto:${loaderData.site.contactEmail}`}>{loaderData.site.contactEmail}</a>.
            </p>
          </div>
        ) : null}
        {loaderData.next ? <input type="hidden" name="next" value={loaderData.next} /> : null}
        <Field label="Email" name="email" type="email" autoComplete="email" error={errors.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          error={errors.password}
        />
        <button type="submit" className="button" disabled={busy}>
          Login
        </button>
        {loaderData.passkeys ? <PasskeySignIn next={loaderData.next} /> : null}
        <p>
          Did you forget your password? <Link to="/forgot-password">Reset Password</Link>
        </p>
        <p>
          No account yet? <Link to="/register">Register</Link>
        </p>
      </Form>
    </section>
  );
}

const stringOf = (value: string | boolean | null | undefined) =>
  typeof value === "string" ? value : undefined;

/**
 * The second step after the right password: the app's six digits, or (behind a disclosure that
 * needs no script) one of the recovery codes.
 */
function SecondFactorForm({
  result,
  next,
  busy,
}: {
  result: ActionResult | undefined;
  next: string | undefined;
  busy: boolean;
}) {
  const errors = result?.errors ?? {};
  return (
    <>
      <Form method="post" className="card form">
        <FormAlert result={result} />
        <input type="hidden" name="intent" value="code" />
        {next ? <input type="hidden" name="next" value={next} /> : null}
        <p>Open your authenticator app and enter the code it shows for this site.</p>
        <Field
          label="Code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]*"
          maxLength={8}
          autoFocus
          error={errors.code}
        />
        <details className="recovery-entry">
          <summary>Use a recovery code instead</summary>
          <Field
            label="Recovery code"
            name="recoveryCode"
            autoComplete="off"
            maxLength={40}
            hint="One of the ten codes you saved when you turned two-factor sign-in on; each works once"
          />
        </details>
        <button type="submit" className="button" disabled={busy}>
          Verify
        </button>
      </Form>
      <Form method="post" className="form-aside">
        <input type="hidden" name="intent" value="restart" />
        <button type="submit" className="button button-ghost">
          Start over with another account
        </button>
      </Form>
    </>
  );
}
