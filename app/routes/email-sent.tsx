import { authMessages } from "../../core/auth/auth-service.js";
import { pageMeta } from "../meta.js";
import { MailIcon } from "../ui/icons.js";
import type { Route } from "./+types/email-sent";

export function loader({ context }: Route.LoaderArgs) {
  return { site: context.site, message: authMessages.registered };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Please verify you email",
    description: "Check your inbox.",
    path: "/email-sent",
  });

export default function EmailSent({ loaderData }: Route.ComponentProps) {
  return (
    <section className="notice-page">
      <MailIcon className="notice-icon" />
      <h1>Please verify you email</h1>
      <p>{loaderData.message}</p>
      <p className="muted">
        We sent the link to the address you registered with. It works for 24 hours.
      </p>
    </section>
  );
}
