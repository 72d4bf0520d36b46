import { Link, redirect } from "react-router";
import { sessionAfterVerifying, verifyEmail } from "../../core/auth/auth-service.js";
import { isSignupProof } from "../../core/auth/signup-proof.js";
import {
  clearedSignupCookie,
  sessionCookie,
  signupCookieName,
} from "../features/auth/session-cookie.server.js";
import { requireVisitor } from "../features/auth/guards.server.js";
import { attempt } from "../features/forms/action.server.js";
import { verificationMeta } from "../meta.js";
import type { Route } from "./+types/verify-email";
import { profilePath } from "../../contract/page-paths.js";
import { readCookie } from "../../contract/cookies.js";

/**
 * The mailed link lands here (the same path answers JSON to API clients). Verifying happens on the
 * server while the page loads, so it works without JavaScript; the pending bar shows meanwhile.
 * A signed-in visitor goes home (SPEC.md 2) unless the link confirms an e-mail change, which is
 * opened while signed in.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { viewer } = context;
  const kinds = viewer ? (["email-change"] as const) : undefined;
  const result = await attempt(() => verifyEmail(context.deps, params.userId, params.token, kinds));
  if (!result.ok && result.status === 400) requireVisitor(context);
  // Opened in the browser that signed up: signed in at once (the proof cookie says it is that one),
  // unless the account is suspended, and shown SPEC's page on /email-verified.
  const proof = readCookie(request.headers.get("cookie"), signupCookieName(context.secureCookies));
  const proven =
    result.ok &&
    !viewer &&
    proof !== undefined &&
    (await isSignupProof(context.deps.db, params.userId, proof, context.deps.clock()));
  const userAgent = request.headers.get("user-agent") ?? undefined;
  const token = proven
    ? await sessionAfterVerifying(context.deps, params.userId, userAgent)
    : undefined;
  if (token) {
    // On to a page of its own: this one's header was made before the session existed.
    const headers = new Headers();
    headers.append("Set-Cookie", sessionCookie(token, context.secureCookies));
    headers.append("Set-Cookie", clearedSignupCookie(context.secureCookies));
    throw redirect("/email-verified", { headers });
  }
  return {
    site: context.site,
    verified: result.ok,
    // "Invalid Link" says it all, but for an address someone else took meanwhile.
    problem: !result.ok && result.status !== 400 ? result.message : undefined,
    profilePath: viewer ? profilePath(viewer.user._id) : undefined,
  };
}

export const meta = ({ loaderData }: Route.MetaArgs) => verificationMeta(loaderData.site);

export default function VerifyEmail({ loaderData }: Route.ComponentProps) {
  const { verified, problem, profilePath } = loaderData;
  return (
    <section className="notice-page">
      {verified ? (
        <h1>Your email address has been successfully verified</h1>
      ) : (
        <h1>{problem ?? "Invalid Link"}</h1>
      )}
      {/* A link works once and expires: say how to get a new one. */}
      {verified || problem ? null : profilePath ? (
        <p>To get a new link, change your email address on your profile again.</p>
      ) : (
        <p>
          To get a new link, log in with your email and password: if your address is not verified
          yet, we mail you a new one.
        </p>
      )}
      {profilePath ? (
        <Link to={profilePath} className="button">
          Go To Profile
        </Link>
      ) : (
        <Link to="/login" className="button">
          Go To Login
        </Link>
      )}
    </section>
  );
}
