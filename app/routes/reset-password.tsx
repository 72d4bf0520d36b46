import { Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { PASSWORD_HINT } from "../../contract/auth-rules.js";
import { checkPasswordResetLink, resetPassword } from "../../core/auth/auth-service.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { flashCookie } from "../features/flash.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation } from "../features/forms/form-state.js";
import { pageMeta } from "../meta.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/reset-password";

export async function loader({ context, params }: Route.LoaderArgs) {
  const link = await attempt(() =>
    checkPasswordResetLink(context.deps, params.userId, params.token),
  );
  return { site: context.site, linkValid: link.ok };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const tooMany = await limited(context, "login");
  if (tooMany) return tooMany;
  const result = await attempt(async () =>
    resetPassword(context.deps, params.userId, params.token, await formFields(request)),
  );
  return result.ok
    ? redirect("/password-reset-successfully", {
        headers: { "Set-Cookie": flashCookie(result.value.message) },
      })
    : fail(result);
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Reset Password",
    description: "Choose a new password.",
    path: "/forgot-password",
  }),
  { name: "robots", content: "noindex" },
];

export default function ResetPassword({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../contract/auth.js").then((m) => m.ResetPasswordSchema),
    result?.errors,
  );
  useToastOn(result);
  return (
    <section className="form-page">
      <h1>Reset Password</h1>
      {loaderData.linkValid ? (
        <Form method="post" noValidate {...form} className="card form">
          <FormAlert result={result} />
          <Field
            label="New Password"
            name="password"
            type="password"
            autoComplete="new-password"
            error={errors.password}
            hint={PASSWORD_HINT}
          />
          <button type="submit" className="button" disabled={busy}>
            Update Password
          </button>
        </Form>
      ) : (
        // A dead link gets no form that can only fail: the way to a new link instead.
        <p className="form-error" role="alert">
          This link is invalid or has expired. Ask for a new one from the{" "}
          <Link to="/forgot-password">Forgot Password page</Link>.
        </p>
      )}
    </section>
  );
}
