import { Form, useActionData, useNavigation } from "react-router";
import { sendPasswordResetLink } from "../../core/auth/auth-service.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { useClientValidation } from "../features/forms/form-state.js";
import { pageMeta } from "../meta.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/forgot-password";

export function loader({ context }: Route.LoaderArgs) {
  return { site: context.site };
}

export async function action({ request, context }: Route.ActionArgs) {
  const tooMany = await limited(context, "resetLink");
  if (tooMany) return tooMany;
  const result = await attempt(async () =>
    sendPasswordResetLink(context.deps, await formFields(request)),
  );
  return result.ok ? { ok: true, message: result.value.message, errors: {} } : fail(result);
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Forgot Password",
    description: "Get a link to reset your password.",
    path: "/forgot-password",
  });

export default function ForgotPassword() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../contract/auth.js").then((m) => m.ForgotPasswordSchema),
    result?.errors,
  );
  useToastOn(result);
  return (
    <section className="form-page">
      <h1>Forgot Password</h1>
      <Form method="post" noValidate {...form} className="card form">
        <FormAlert result={result} />
        <Field label="Email" name="email" type="email" autoComplete="email" error={errors.email} />
        <button type="submit" className="button" disabled={busy}>
          Reset Password
        </button>
        {result?.ok ? <p role="status">{result.message}</p> : null}
      </Form>
    </section>
  );
}
