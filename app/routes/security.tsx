import { Form, Link, useActionData, useNavigation } from "react-router";
import { securityMessages } from "../../contract/account-security.js";
import {
  listPasskeys,
  removePasskey,
  verifyPasskeyRegistration,
} from "../../core/auth/passkeys.js";
import { servedAtAddress } from "../../core/auth/relying-party.js";
import {
  disableTwoFactor,
  enableTwoFactor,
  recoveryCodesLeft,
  setupTwoFactor,
} from "../../core/auth/second-factor.js";
import {
  endSession,
  listSessions,
  revokeUserSessions,
  signedInRecently,
} from "../../core/auth/sessions.js";
import { otpauthUrl } from "../../core/auth/totp.js";
import { invalid } from "../../core/shared/errors.js";
import { requireUser } from "../../core/users/users-service.js";
import { requireViewer } from "../features/auth/guards.server.js";
import { attempt, fail, formFields, limited } from "../features/forms/action.server.js";
import { Field } from "../features/forms/field.js";
import { FormAlert } from "../features/forms/form-alert.js";
import { RowAction } from "../features/forms/row-action.js";
import type { ActionResult } from "../features/forms/form-state.js";
import { passkeyAnswer } from "../features/security/passkey-answer.server.js";
import { PasskeysCard } from "../features/security/passkeys-card.js";
import { qrCodeImage } from "../features/security/qr-code.server.js";
import settingsStyles from "../features/settings/settings.css?url";
import { pageMeta } from "../meta.js";
import { CopyButton } from "../ui/copy-button.js";
import { dateTime } from "../ui/format.js";
import { useToastOn } from "../ui/toasts.js";
import type { Route } from "./+types/security";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: settingsStyles }];

export async function loader({ context }: Route.LoaderArgs) {
  const viewer = requireViewer(context, "/settings/security");
  const { deps } = context;
  const user = await requireUser(deps, viewer.actor.id);
  const pendingSecret = user.totp_secret === null ? user.totp_pending_secret : null;
  const setupUrl = pendingSecret ? otpauthUrl(pendingSecret, user.email, deps.site.title) : null;
  const [passkeys, sessions, recoveryLeft] = await Promise.all([
    listPasskeys(deps, user.id),
    listSessions(deps, user.id, viewer.sessionId),
    recoveryCodesLeft(deps, user.id),
  ]);
  return {
    site: context.site,
    twoFactorOn: user.totp_secret !== null,
    setup:
      pendingSecret && setupUrl
        ? { secret: pendingSecret, qr: await qrCodeImage(setupUrl) }
        : undefined,
    recoveryLeft,
    passkeys,
    // Where passkeys cannot work (a site served at an IP address), the note that says why.
    passkeyBlockedAt: servedAtAddress(context.site.publicUrl),
    sessions,
    // Past it, removing a passkey asks for the password (a session alone does not prove the owner).
    signedInRecently: signedInRecently(deps.clock(), viewer),
    // An admin account acting as a member here: the site's rule holds this session back.
    adminNeedsSecondFactor: user.is_admin === 1 && !viewer.actor.isAdmin,
  };
}

type Intent =
  | "totp-setup"
  | "totp-enable"
  | "totp-disable"
  | "passkey-add"
  | "passkey-remove"
  | "session-end"
  | "sessions-end-others";

const SPENDS_SECURITY_LIMIT = new Set<string>([
  "totp-setup",
  "totp-enable",
  "totp-disable",
  "passkey-add",
  "passkey-remove",
]);

export async function action({ request, context }: Route.ActionArgs) {
  const viewer = requireViewer(context);
  const fields = await formFields(request);
  const intent = (fields.intent ?? "") as Intent;
  if (SPENDS_SECURITY_LIMIT.has(intent)) {
    const tooMany = await limited(context, "security");
    if (tooMany) return tooMany;
  }
  const { deps } = context;
  const result = await attempt(async (): Promise<{ message: string; recoveryCodes?: string[] }> => {
    const user = await requireUser(deps, viewer.actor.id);
    switch (intent) {
      case "totp-setup":
        await setupTwoFactor(deps, user, viewer);
        return { message: "Scan the code with your app, then enter the code it shows" };
      case "totp-enable":
        return {
          message: securityMessages.enabled,
          recoveryCodes: (await enableTwoFactor(deps, user, { code: fields.code ?? "" }, viewer))
            .recoveryCodes,
        };
      case "totp-disable":
        await disableTwoFactor(deps, user, { currentPassword: fields.currentPassword ?? "" });
        return { message: securityMessages.disabled };
      case "passkey-add":
        await verifyPasskeyRegistration(deps, user, passkeyAnswer(fields), viewer);
        return { message: securityMessages.passkeyAdded };
      case "passkey-remove":
        await removePasskey(
          deps,
          user,
          fields.id ?? "",
          { currentPassword: fields.currentPassword ?? "" },
          viewer,
        );
        return { message: securityMessages.passkeyRemoved };
      case "session-end":
        await endSession(deps.db, user.id, fields.id ?? "");
        return { message: securityMessages.sessionEnded };
      case "sessions-end-others":
        await revokeUserSessions(deps.db, user.id, viewer.sessionId);
        return { message: securityMessages.othersEnded };
      default:
        throw invalid("Unknown action");
    }
  });
  return result.ok
    ? { ok: true as const, intent, errors: {}, ...result.value }
    : fail({ ...result, intent, id: fields.id });
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Security",
    description: "Two-factor sign-in, passkeys and signed-in devices.",
    path: "/settings/security",
  }),
  { name: "robots", content: "noindex" },
];

type Result =
  (ActionResult & { intent?: string; id?: string; recoveryCodes?: string[] }) | undefined;

const errorsOf = (result: Result, intent: Intent) =>
  result && !result.ok && result.intent === intent ? (result.errors ?? {}) : {};

export default function Security({ loaderData }: Route.ComponentProps) {
  const result: Result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  useToastOn(result);
  const { twoFactorOn, setup, passkeys, sessions } = loaderData;
  const others = sessions.filter((session) => !session.current);
  return (
    <section className="form-page security-page">
      <h1>Security</h1>
      <p>
        <Link to="/settings">Back to settings</Link>
      </p>
      {loaderData.adminNeedsSecondFactor ? (
        <p role="status" className="form-note">
          This site asks admins to sign in with two-factor sign-in or a passkey.{" "}
          {twoFactorOn || passkeys.length > 0
            ? "This sign-in used only the password: sign out and sign in again with your app's code or a passkey to act as an admin (and to add another way to sign in)."
            : "Until you set one up here, or sign in again with one, you act as a member."}
        </p>
      ) : null}

      <section className="card form" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        {result?.intent?.startsWith("totp") ? <FormAlert result={result} /> : null}
        {result?.ok && result.recoveryCodes ? (
          <RecoveryCodes codes={result.recoveryCodes} site={loaderData.site.title} />
        ) : null}
        {twoFactorOn ? (
          <>
            <p>
              On: signing in asks for a code from your authenticator app after your password.
              Recovery codes left: <strong>{loaderData.recoveryLeft}</strong>.
            </p>
            <Form method="post" className="form">
              <input type="hidden" name="intent" value="totp-disable" />
              <Field
                label="Current password"
                name="currentPassword"
                id="field-disable-password"
                type="password"
                autoComplete="current-password"
                error={errorsOf(result, "totp-disable").currentPassword}
              />
              <button type="submit" className="button button-danger" disabled={busy}>
                Turn off two-factor sign-in
              </button>
            </Form>
          </>
        ) : setup ? (
          <Form method="post" className="form">
            <input type="hidden" name="intent" value="totp-enable" />
            <p>
              Scan this code with an authenticator app (such as 1Password, Google Authenticator or
              Aegis), then enter the six digits it shows.
            </p>
            <img
              className="qr-code"
              src={setup.qr}
              width={200}
              height={200}
              alt="QR code for your authenticator app; the key below says the same"
            />
            <p>
              Or type this key into the app: <code className="totp-secret">{setup.secret}</code>
            </p>
            <Field
              label="Code from the app"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={8}
              error={errorsOf(result, "totp-enable").code}
            />
            <button type="submit" className="button" disabled={busy}>
              Turn on
            </button>
          </Form>
        ) : (
          <Form method="post" className="form">
            <input type="hidden" name="intent" value="totp-setup" />
            <p>
              Off. With it on, signing in also asks for a six-digit code from an app on your phone,
              so a stolen password alone does not open your account.
            </p>
            <button type="submit" className="button" disabled={busy}>
              Set up two-factor sign-in
            </button>
          </Form>
        )}
      </section>

      <PasskeysCard
        passkeys={passkeys}
        signedInRecently={loaderData.signedInRecently}
        blockedAt={loaderData.passkeyBlockedAt}
        result={result}
        busy={busy}
      />

      <section className="card form" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Signed-in devices</h2>
        {result?.intent?.startsWith("session") ? <FormAlert result={result} /> : null}
        <ul className="security-list">
          {sessions.map((session) => (
            <li key={session._id}>
              <div>
                <strong>{session.device}</strong>
                {session.current ? <span className="badge">This device</span> : null}
                <span className="security-meta">
                  Signed in <time dateTime={session.createdAt}>{dateTime(session.createdAt)}</time>
                  {" · "}
                  last seen{" "}
                  <time dateTime={session.lastSeenAt}>{dateTime(session.lastSeenAt)}</time>
                </span>
              </div>
              {session.current ? null : (
                <RowAction
                  intent="session-end"
                  id={session._id}
                  label="Sign out"
                  // Two devices may have the same name: when each signed in tells them apart.
                  name={`Sign out ${session.device}, signed in ${dateTime(session.createdAt)}`}
                  busy={busy}
                />
              )}
            </li>
          ))}
        </ul>
        {others.length > 0 ? (
          <Form method="post">
            <input type="hidden" name="intent" value="sessions-end-others" />
            <button type="submit" className="button button-ghost" disabled={busy}>
              Sign out all other devices
            </button>
          </Form>
        ) : null}
      </section>
    </section>
  );
}

/** The ten codes, shown this once, with a file to keep them in. */
function RecoveryCodes({ codes, site }: { codes: string[]; site: string }) {
  const text = `Recovery codes for ${site}\nEach signs in once instead of a code from your app.\n\n${codes.join("\n")}\n`;
  return (
    <div className="recovery-codes" role="status">
      <h3>Save your recovery codes</h3>
      <p>
        If you lose your phone, each of these signs you in once instead of a code. They are shown
        only now: copy them to a password manager, download them or write them down, and keep them
        somewhere safe.
      </p>
      <ul>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="row-actions">
        <a
          className="button button-small"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          download="recovery-codes.txt"
        >
          Download the codes
        </a>
        <CopyButton text={codes.join("\n")} label="Copy the codes" />
      </div>
    </div>
  );
}
