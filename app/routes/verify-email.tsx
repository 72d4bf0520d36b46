import { Link } from "react-router";
import { verifyEmail } from "../../core/auth/auth-service.js";
import { requireVisitor } from "../features/auth/guards.server.js";
import { attempt } from "../features/forms/action.server.js";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/verify-email";

/**
 * The mailed link lands here (the same path answers JSON to API clients). Verifying happens on the
 * server while the page loads, so it works without JavaScript; the pending bar shows meanwhile.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  requireVisitor(context);
  const result = await attempt(() => verifyEmail(context.deps, params.userId, params.token));
  return { site: context.site, verified: result.ok };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Verify your email",
    description: "E-mail verification.",
    path: "/login",
  }),
  { name: "robots", content: "noindex" },
];

export default function VerifyEmail({ loaderData }: Route.ComponentProps) {
  return (
    <section className="notice-page">
      {loaderData.verified ? (
        <h1>Your email address has been successfully verified</h1>
      ) : (
        <h1>Invalid Link</h1>
      )}
      <Link to="/login" className="button">
        Go To Login
      </Link>
    </section>
  );
}
