import { data, Form, useActionData, useNavigation, type AppLoadContext } from "react-router";
import {
  authMessages,
  pendingSignupEmail,
  resendVerification,
} from "../../core/auth/auth-service.js";
import { isSignupProof } from "../../core/auth/signup-proof.js";
import { readCookie } from "../../contract/cookies.js";
import { signupCookieName } from "../features/auth/session-cookie.server.js";
import { attempt, fail, limited } from "../features/forms/action.server.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { pageMeta } from "../meta.js";
import { MailIcon } from "../ui/icons.js";
import { useSaidInToast, useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/email-sent";

/**
 * The account this browser signed up as, from its proof cookie (core/auth/signup-proof.ts): the
 * only one whose address the page may show or whose link it may send again.
 */
async function signedUpAs(context: AppLoadContext, request: Request) {
  const proof = readCookie(request.headers.get("cookie"), signupCookieName(context.secureCookies));
  const userId = proof?.split(".", 1)[0];
  if (!proof || !userId) return undefined;
  const proven = await isSignupProof(context.deps.db, userId, proof, context.deps.clock());
  return proven ? userId : undefined;
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const userId = await signedUpAs(context, request);
  // Made per request (not a shared page): it shows the address this browser signed up with.
  const sentTo = userId ? await pendingSignupEmail(context.deps, userId) : undefined;
  return { site: context.site, message: authMessages.registered, sentTo };
}

/** "Send the link again": a new link to the address this browser signed up with. */
export async function action({ context, request }: Route.ActionArgs) {
  const tooMany = await limited(context, "resetLink");
  if (tooMany) return tooMany;
  const userId = await signedUpAs(context, request);
  const result = await attempt(async () =>
    userId ? resendVerification(context.deps, userId) : undefined,
  );
  if (!result.ok) return fail(result);
  if (result.value === undefined) {
    return data(
      { ok: false, message: "There is no sign-up to send a link for on this browser.", errors: {} },
      { status: 400 },
    );
  }
  return { ok: true, message: `A new link is on its way to ${result.value}.`, errors: {} };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Please verify you email",
    description: "Check your inbox.",
    path: "/email-sent",
  });

export default function EmailSent({ loaderData }: Route.ComponentProps) {
  const { sentTo } = loaderData;
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  const toasted = useSaidInToast(result?.message);
  return (
    <section className="notice-page">
      <MailIcon className="notice-icon" />
      <h1>Please verify you email</h1>
      <p>{loaderData.message}</p>
      {sentTo ? (
        <>
          <p className="muted">
            We sent the link to <strong>{sentTo}</strong>. It works for 24 hours. Not there? Look in
            the spam folder, or send it again.
          </p>
          <Form method="post" className="notice-actions">
            <FormAlert result={result} />
            {result?.ok && !toasted ? <p role="status">{result.message}</p> : null}
            <button type="submit" className="button button-ghost" disabled={busy}>
              Send the link again
            </button>
          </Form>
        </>
      ) : (
        <p className="muted">
          We sent the link to the address you registered with. It works for 24 hours.
        </p>
      )}
    </section>
  );
}
