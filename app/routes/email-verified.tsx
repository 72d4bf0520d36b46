import { Link, redirect } from "react-router";
import { authMessages } from "../../core/auth/auth-service.js";
import { verificationMeta } from "../meta.js";
import type { Route } from "./+types/email-verified";

/**
 * Where the verification link leads the browser that signed up, once it has signed it in (issue
 * 33): SPEC's verified page, with its link to /login, which takes a signed-in member home. A page
 * of its own, so that its header is made with the new session. Anyone signed in has a verified
 * address; anyone else goes to the login.
 */
export function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login");
  return { site: context.site, message: authMessages.verified };
}

export const meta = ({ loaderData }: Route.MetaArgs) => verificationMeta(loaderData.site);

export default function EmailVerified({ loaderData }: Route.ComponentProps) {
  return (
    <section className="notice-page">
      <h1>{loaderData.message}</h1>
      <p>You are logged in on this browser.</p>
      <Link to="/login" className="button">
        Continue
      </Link>
    </section>
  );
}
