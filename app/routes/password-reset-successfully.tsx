import { Link } from "react-router";
import { pageMeta } from "../meta.js";
import type { Route } from "./+types/password-reset-successfully";

export function loader({ context }: Route.LoaderArgs) {
  return { site: context.site };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Password reset successfully",
    description: "Your password was reset.",
    path: "/password-reset-successfully",
  });

export default function PasswordResetSuccessfully() {
  return (
    <section className="notice-page">
      <h1>Password reset successfully</h1>
      <Link to="/login" className="button">
        Login
      </Link>
    </section>
  );
}
