// The addresses of the site's pages (SPEC's routes and DESIGN.md's), made in one place for the
// pages, the feeds and the mails: no page address is written by hand anywhere else (lint holds it).

/** A post's page. */
export const postPath = (postId: string) => `/posts/details/${encodeURIComponent(postId)}`;

/** A category's page, by its title. */
export const categoryPath = (title: string) => `/posts/categories/${encodeURIComponent(title)}`;

/** A tag's page. */
export const tagPath = (tag: string) => `/tags/${encodeURIComponent(tag)}`;

/** A series' page (decision 032): its posts in order, and for its writer the tools to order them. */
export const seriesPath = (seriesId: string) => `/series/${encodeURIComponent(seriesId)}`;

/** The signed-in writer's series: a list, and a form to start one. */
export const ownSeriesPath = "/series";

/** The tabs of a profile page beside its published posts. */
export type UnpublishedTab = "drafts" | "scheduled";

/** A member's profile page (SPEC's `/profile/:id`), on one of its tabs. */
export const profilePath = (userId: string, tab?: UnpublishedTab) =>
  `/profile/${encodeURIComponent(userId)}${tab ? `?tab=${tab}` : ""}`;

/** A post's full editor. */
export const postEditorPath = (postId: string) => `/posts/edit/${encodeURIComponent(postId)}`;

/** What the quick editor reads of a post's mailing when it opens (decision 028). */
export const postNewsletterOfferPath = (postId: string) =>
  `/posts/edit/${encodeURIComponent(postId)}/newsletter`;

/** A post's stats page. */
export const postStatsPath = (postId: string) => `/stats/posts/${encodeURIComponent(postId)}`;

/** The search page for a query. */
export const searchPath = (query: string) => `/search?q=${encodeURIComponent(query)}`;

/** The account's security settings (two-factor sign-in, passkeys, devices). */
export const securitySettingsPath = "/settings/security";

/** The API tokens' list on the settings page (its section's id). */
export const API_TOKENS_ANCHOR = "api-tokens";
export const apiTokensPath = `/settings#${API_TOKENS_ANCHOR}`;

/** Where a password reset starts. */
export const forgotPasswordPath = "/forgot-password";

/** Where subscribe forms post, and the page that answers them without JavaScript (decision 028). */
export const newsletterSubscribePath = "/newsletter/subscribe";

/** An owner's subscribers: a writer's own, or every one for an admin (decision 028). */
export const newsletterSubscribersPath = "/newsletter/subscribers";

/** The same list as a CSV file, for the page's session. */
export const newsletterSubscribersCsvPath = "/newsletter/subscribers.csv";

/** An author's public page, for everyone (DESIGN.md 11, "Public author pages"). */
export const authorPath = (username: string) => `/@${encodeURIComponent(username)}`;

/** A newsletter subscription's confirmation page (decision 028). */
export const newsletterConfirmPath = (id: string, token: string) =>
  `/newsletter/confirm/${encodeURIComponent(id)}/${encodeURIComponent(token)}`;

/** A newsletter's unsubscribe page, and its one-click address (RFC 8058) alike. */
export const newsletterUnsubscribePath = (token: string) =>
  `/newsletter/unsubscribe/${encodeURIComponent(token)}`;

/** A static page (DESIGN.md 11, "Pages and series"). */
export const pagePath = (slug: string) => `/pages/${encodeURIComponent(slug)}`;

/** The admin's list of static pages, and a page's editor (`new` for a page still to write). */
export const adminPagesPath = "/admin-dashboard/pages";
/** Where a draft page saves itself as an admin types (a resource route, POST alone). */
export const pageAutosavePath = "/admin-dashboard/page-autosave";
export const pageEditorPath = (pageId: string) =>
  `/admin-dashboard/pages/${encodeURIComponent(pageId)}`;
