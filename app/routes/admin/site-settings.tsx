import { data, Form, redirect, useActionData, useNavigation } from "react-router";
import {
  SITE_EMAIL_MAX,
  SITE_LOGO_MAX_BYTES,
  SITE_PHONE_MAX,
  SITE_TITLE_MAX,
  SITE_WELCOME_MAX,
  SOCIAL_NETWORK_NAMES,
  SOCIAL_NETWORKS,
  SOCIAL_URL_MAX,
  type SocialNetwork,
} from "../../../contract/site-settings.js";
import {
  adminSecondFactorRequired,
  newsletterDefaultOf,
  updateSiteSettings,
} from "../../../core/site-settings/site-settings-service.js";
import { requireAdmin } from "../../features/admin/guard.server.js";
import { flashCookie } from "../../features/flash.server.js";
import { attempt, imageForm, limited } from "../../features/forms/action.server.js";
import { Field, TextAreaField } from "../../features/forms/field.js";
import { FormAlert } from "../../features/forms/form-alert.js";
import { NavigationFields } from "../../features/admin/navigation-fields.js";
import { navigationFromForm } from "../../features/admin/navigation-form.js";
import type { SiteNavigation } from "../../../contract/navigation.js";
import { useClientValidation } from "../../features/forms/form-state.js";
import { ImageInput } from "../../features/forms/image-input.js";
import { pageMeta } from "../../meta.js";
import { useToastOn } from "../../ui/toasts.js";
import type { Route } from "./+types/site-settings";

import navigationStyles from "../../features/admin/navigation-fields.css?url";

const PATH = "/admin-dashboard/site-settings";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: navigationStyles }];

type TextName = "title" | "welcome" | "contactPhone" | "contactEmail";

/** The form's field for a network's link (one field each, sent as `socialLinks`). */
const socialField = (network: SocialNetwork) => `social-${network}`;

/** What a refused submit had in its fields, to show again. */
type Typed = Partial<Record<TextName, string>> & {
  socialLinks?: Record<string, string>;
  navigation?: SiteNavigation;
};
const typedOf = (result: unknown): Typed | undefined =>
  typeof result === "object" && result !== null && "typed" in result
    ? (result.typed as Typed)
    : undefined;

export async function loader({ context }: Route.LoaderArgs) {
  requireAdmin(context);
  return {
    site: context.site,
    requireAdminSecondFactor: await adminSecondFactorRequired(context.deps),
    newsletterDefault: await newsletterDefaultOf(context.deps),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { actor } = requireAdmin(context);
  const tooMany = await limited(context, "settings");
  if (tooMany) return tooMany;
  const { fields, image } = await imageForm(request);
  const socialLinks = Object.fromEntries(
    SOCIAL_NETWORKS.map((network) => [network, fields[socialField(network)] ?? ""]),
  );
  // The rows as typed, with the move or removal a row's button asked for (decision 032).
  const navigation = navigationFromForm(fields);
  const result = await attempt(() =>
    context.outsideSlot(() =>
      updateSiteSettings(
        context.deps,
        actor,
        {
          ...fields,
          socialLinks,
          navigation,
          // A checkbox sends nothing when unticked: the form always means one or the other.
          requireAdminSecondFactor: fields.requireAdminSecondFactor === "true",
          newsletterDefault: fields.newsletterSend === "true" ? "send" : "none",
        },
        image,
        request.signal,
      ),
    ),
  );
  // Saved: a fresh page, whose header and footer already show the new values (without JavaScript
  // too). Refused: the form again with what was typed and why.
  if (result.ok) {
    return redirect(PATH, { headers: { "Set-Cookie": flashCookie(result.value.message) } });
  }
  const typed = {
    title: fields.title ?? "",
    welcome: fields.welcome ?? "",
    contactPhone: fields.contactPhone ?? "",
    contactEmail: fields.contactEmail ?? "",
    socialLinks,
    navigation,
  };
  return data({ ...result, typed }, { status: result.status });
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  pageMeta(loaderData.site, {
    title: "Site settings",
    description: "The site's title, welcome text, contacts, navigation and logo.",
    path: PATH,
  });

export default function SiteSettings({ loaderData }: Route.ComponentProps) {
  const { site } = loaderData;
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { errors, form } = useClientValidation(
    () => import("../../../contract/site-settings.js").then((m) => m.SiteSettingsSchema),
    result?.errors,
  );
  useToastOn(result);
  const typed = typedOf(result);
  const value = (name: TextName) => typed?.[name] ?? site[name];
  return (
    <>
      <h1 className="page-title">Site settings</h1>
      <Form
        method="post"
        encType="multipart/form-data"
        noValidate
        {...form}
        className="card form site-settings"
        // A saved form starts again from the stored values.
        key={`${String(loaderData.requireAdminSecondFactor)}|${loaderData.newsletterDefault}|${site.title}|${site.welcome}|${site.contactPhone}|${site.contactEmail}|${site.logo?.url ?? ""}|${JSON.stringify(site.socialLinks)}|${JSON.stringify(site.navigation)}`}
      >
        {/* Enter in a field sends the form with its first submit button: Save, not a row's Up. */}
        <button type="submit" className="visually-hidden" tabIndex={-1} aria-hidden="true">
          Save
        </button>
        <FormAlert result={result} />
        <Field
          label="Site title"
          name="title"
          maxLength={SITE_TITLE_MAX}
          error={errors.title}
          defaultValue={value("title")}
        />
        <TextAreaField
          label="Welcome text"
          name="welcome"
          rows={4}
          maxLength={SITE_WELCOME_MAX}
          error={errors.welcome}
          defaultValue={value("welcome")}
        />
        <Field
          label="Contact phone"
          name="contactPhone"
          type="tel"
          maxLength={SITE_PHONE_MAX}
          error={errors.contactPhone}
          defaultValue={value("contactPhone")}
        />
        <Field
          label="Contact e-mail"
          name="contactEmail"
          type="email"
          maxLength={SITE_EMAIL_MAX}
          error={errors.contactEmail}
          defaultValue={value("contactEmail")}
        />
        <fieldset className="fieldset">
          <legend>Social links (footer)</legend>
          {SOCIAL_NETWORKS.map((network) => (
            <Field
              key={network}
              label={`${SOCIAL_NETWORK_NAMES[network]} address`}
              name={socialField(network)}
              type="url"
              placeholder="https://"
              maxLength={SOCIAL_URL_MAX}
              error={errors[`socialLinks.${network}`]}
              defaultValue={typed?.socialLinks?.[network] ?? site.socialLinks[network] ?? ""}
            />
          ))}
        </fieldset>
        <NavigationFields navigation={typed?.navigation ?? site.navigation} errors={errors} />
        {site.logo ? (
          <div className="field">
            <p>Current logo</p>
            <img src={site.logo.url} alt="The current logo" className="logo-preview" />
            <label className="checkbox">
              <input type="checkbox" name="removeLogo" value="true" /> Remove the logo
            </label>
          </div>
        ) : null}
        <ImageInput
          label={site.logo ? "New logo" : "Logo"}
          error={errors.image}
          maxBytes={SITE_LOGO_MAX_BYTES}
        />
        <fieldset className="fieldset">
          <legend>Admin accounts</legend>
          <label className="checkbox">
            <input
              type="checkbox"
              name="requireAdminSecondFactor"
              value="true"
              defaultChecked={loaderData.requireAdminSecondFactor}
              aria-describedby="admin-second-factor-hint"
            />{" "}
            Require two-factor sign-in or a passkey for admins
          </label>
          <p id="admin-second-factor-hint" className="field-hint">
            An admin without either acts as a member until they add one on their Security page.
          </p>
          {errors.requireAdminSecondFactor ? (
            <p className="field-error">{errors.requireAdminSecondFactor}</p>
          ) : null}
        </fieldset>
        <fieldset className="fieldset">
          <legend>Newsletter</legend>
          <label className="checkbox">
            <input
              type="checkbox"
              name="newsletterSend"
              value="true"
              defaultChecked={loaderData.newsletterDefault === "send"}
              aria-describedby="newsletter-default-hint"
            />{" "}
            E-mail new posts to subscribers unless the writer chooses “Publish only”
          </label>
          <p id="newsletter-default-hint" className="field-hint">
            What the publish buttons offer first. Writers choose for each post.
          </p>
        </fieldset>
        <button type="submit" className="button" disabled={busy}>
          Save
        </button>
      </Form>
    </>
  );
}
