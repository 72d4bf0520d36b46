import { Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { LoginSchema } from "../../contract/auth.js";
import { login } from "../../core/auth/auth-service.js";
import { requireVisitor } from "../features/auth/guards.server.js";
import { returnPath } from "../features/auth/return-path.js";
import { sessionCookie } from "../features/auth/session-cookie.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation } from "../features/forms/form-state.js";
import { pageMeta } from "../meta.js";
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
  if (!result.ok) return fail(result);
  return redirect(returnPath(fields.next) ?? "/", {
    headers: { "Set-Cookie": sessionCookie(result.value.token, context.secureCookies) },
  });
}

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
  return (
    <section className="form-page">
      <h1>Log in to your account</h1>
      <Form method="post" noValidate onSubmit={onSubmit} className="card form">
        <FormAlert result={result} />
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
