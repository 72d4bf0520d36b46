import { Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { PASSWORD_HINT } from "../../contract/auth-rules.js";
import { findUserByEmail, register } from "../../core/auth/auth-service.js";
import { signupProof } from "../../core/auth/signup-proof.js";
import { signupCookie } from "../features/auth/session-cookie.server.js";
import { requireVisitor } from "../features/auth/guards.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation } from "../features/forms/form-state.js";
import { pageMeta } from "../meta.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/register";

export function loader({ context }: Route.LoaderArgs) {
  requireVisitor(context);
  return { site: context.site };
}

export async function action({ request, context }: Route.ActionArgs) {
  requireVisitor(context);
  const tooMany = await limited(context, "register");
  if (tooMany) return tooMany;
  const fields = await formFields(request);
  const result = await attempt(async () => register(context.deps, fields));
  if (!result.ok) return fail(result);
  // This browser may finish signing up by opening the mailed link (no second login).
  const user = await findUserByEmail(context.deps, fields.email ?? "");
  const headers = user
    ? {
        "Set-Cookie": signupCookie(
          await signupProof(context.deps.db, user.id, context.deps.clock()),
          context.secureCookies,
        ),
      }
    : undefined;
  return redirect("/email-sent", { headers });
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Register",
    description: "Create an account.",
    path: "/register",
  });

export default function Register() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../contract/auth.js").then((m) => m.RegisterSchema),
    result?.errors,
  );
  useToastOn(result);
  return (
    <section className="form-page">
      <h1>Create new account</h1>
      <Form method="post" noValidate {...form} className="card form">
        <FormAlert result={result} />
        <Field label="Username" name="username" autoComplete="username" error={errors.username} />
        <Field label="Email" name="email" type="email" autoComplete="email" error={errors.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          error={errors.password}
          hint={PASSWORD_HINT}
        />
        <button type="submit" className="button" disabled={busy}>
          Register
        </button>
        <p>
          Already have an account? <Link to="/login">Login</Link>
        </p>
      </Form>
    </section>
  );
}
