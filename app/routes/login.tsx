import { data, Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { LoginSchema } from "../../contract/auth.js";
import { authMessages, findUserByEmail, login } from "../../core/auth/auth-service.js";
import { signupProof } from "../../core/auth/signup-proof.js";
import { requireVisitor } from "../features/auth/guards.server.js";
import { returnPath } from "../features/auth/return-path.js";
import {
  sessionCookie,
  signupCookie,
  withSetCookies,
} from "../features/auth/session-cookie.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation } from "../features/forms/form-state.js";
import { pageMeta } from "../meta.js";
import { dateTime } from "../ui/format.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/login";

export function loader({ context, request }: Route.LoaderArgs) {
  requireVisitor(context);
  return { site: context.site, next: returnPath(new URL(request.url).searchParams.get("next")) };
}

export async function action({ request, context }: Route.ActionArgs) {
  requireVisitor(context);
  const tooMany = await limited(context, "login");
  if (tooMany) return tooMany;
  const fields = await formFields(request);
  const result = await attempt(async () => login(context.deps, fields));
  if (!result.ok) {
    // Not verified yet: not a mistake but the next step, said once by the form, with the address
    // the new link went to.
    if (result.status === 403 && result.message === authMessages.registered) {
      const user = await findUserByEmail(context.deps, fields.email ?? "");
      const proof = user
        ? await signupProof(context.deps.db, user.id, context.deps.clock())
        : undefined;
      return data(
        { ok: false, notice: result.message, sentTo: fields.email ?? "", errors: {} },
        proof ? { headers: { "Set-Cookie": signupCookie(proof, context.secureCookies) } } : {},
      );
    }
    return fail(result);
  }
  return redirect(returnPath(fields.next) ?? "/", {
    headers: { "Set-Cookie": sessionCookie(result.value.token, context.secureCookies) },
  });
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
  const { errors, onSubmit } = useClientValidation(LoginSchema, result?.errors);
  useToastOn(result);
  const suspension = result && "details" in result ? result.details : undefined;
  return (
    <section className="form-page">
      <h1>Log in to your account</h1>
      <Form method="post" noValidate onSubmit={onSubmit} className="card form">
        {result && "notice" in result ? (
          <div role="status" className="form-note">
            <p>{result.notice}</p>
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
