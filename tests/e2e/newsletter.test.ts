import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { subscriptionLinks } from "../../core/newsletter/subscriptions.js";
import { lastMailTo, readOutbox, type Mail } from "../support/mail.js";
import { addPost, type PostDetail } from "../support/post-fixtures.js";
import {
  expectAccessible,
  expectNoProblems,
  shows,
  openBrowserSite,
  ownerMenu,
} from "./browser.js";

// Newsletters in the browser (decision 028): subscribing from a post, the home page and an
// author's page, with and without JavaScript; the mailed links (the confirmation page and the
// unsubscribe page change nothing when opened; their buttons do, without a session); a writer
// publishing with "e-mail subscribers" and seeing it sent; a member's subscriptions in Settings.
const {
  server,
  api,
  open,
  users: { writer, member },
} = await openBrowserSite({
  users: { writer: { username: "penwright" }, member: { username: "inboxer" } },
  categories: ["Letters"],
});

/** The first mail to `address` that `find` accepts, waited for (the outbox sends it). */
async function mailTo(address: string, find: (mail: Mail) => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const mail = (await readOutbox(server.config.dataDir)).find(
      (candidate) => candidate.to.toLowerCase().includes(address) && find(candidate),
    );
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no such mail to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const confirmLinkIn = (mail: Mail) => {
  const link = mail.links.find((candidate) => candidate.includes("/newsletter/confirm/"));
  if (!link) throw new Error("no confirmation link");
  return new URL(link).pathname;
};

const statusOf = async (email: string) =>
  (
    await server.app.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("email", "=", email)
      .executeTakeFirstOrThrow()
  ).status;

describe("a newsletter's mailed links", () => {
  it("confirm a subscription, then end it, from a phone", async () => {
    const email = "phone-reader@example.com";
    expect((await api.post("/api/newsletter/subscribe", { email })).status).toBe(202);
    const mail = await lastMailTo(server.config.dataDir, email);
    const confirm = mail.links.find((link) => link.includes("/newsletter/confirm/"));
    if (!confirm) throw new Error("no confirmation link");

    const site = await open({ phone: true });
    const { page } = site;
    await page.goto(new URL(confirm).pathname);
    await shows(page.getByRole("heading", { name: "Confirm your subscription?" }));
    expect(await statusOf(email)).toBe("pending");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Confirm subscription" }).click();
    await shows(page.getByRole("heading", { name: "You are subscribed" }));
    expect(await statusOf(email)).toBe("active");

    // The unsubscribe link of its subscription, as a post's mail carries it.
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    const links = await subscriptionLinks(server.app.deps, row.id);
    await page.goto(new URL(links.unsubscribePage).pathname);
    await shows(page.getByRole("heading", { name: "Stop getting new posts by e-mail?" }));
    expect(await statusOf(email)).toBe("active");
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await shows(page.getByRole("heading", { name: "You are unsubscribed" }));
    expect(await statusOf(email)).toBe("unsubscribed");
    expectNoProblems(site);
    await site.context.close();

    // A link that is not one says so.
    const stray = await open({ javaScriptEnabled: false });
    const answer = await stray.page.goto(`${new URL(links.unsubscribePage).pathname}x`);
    expect(answer?.status()).toBe(404);
    await shows(stray.page.getByRole("heading", { name: "This unsubscribe link is not valid" }));
    await stray.context.close();
  });

  it("work without JavaScript", async () => {
    const email = "plain-reader@example.com";
    await api.post("/api/newsletter/subscribe", { email });
    const mail = await lastMailTo(server.config.dataDir, email);
    const confirm = mail.links.find((link) => link.includes("/newsletter/confirm/"));
    if (!confirm) throw new Error("no confirmation link");
    const site = await open({ javaScriptEnabled: false });
    await site.page.goto(new URL(confirm).pathname);
    await site.page.getByRole("button", { name: "Confirm subscription" }).click();
    await shows(site.page.getByRole("heading", { name: "You are subscribed" }));
    expect(await statusOf(email)).toBe("active");
    await site.context.close();
  });
});

describe("subscribing and sending", () => {
  let first: PostDetail;
  beforeAll(async () => {
    first = await addPost(api, writer, { title: "Letters from the coast", category: "Letters" });
  });

  it("a visitor subscribes from a post on a phone, confirms, and gets the next post once", async () => {
    const email = "coast-reader@example.com";
    const visitor = await open({ phone: true });
    const { page } = visitor;
    await page.goto(`/posts/details/${first._id}`);
    const form = page.getByRole("region", { name: "Get new posts by e-mail" });
    await shows(form);
    expect(await form.getByLabel("penwright's posts").isChecked()).toBe(true);
    await expectAccessible(page);
    // A wrong address is refused by the field, what was typed kept.
    await form.getByLabel("Email").fill("not-an-address");
    await form.getByRole("button", { name: "Subscribe" }).click();
    await shows(form.getByText("Email must be a valid email address"));
    await form.getByLabel("Email").fill(email);
    await form.getByRole("button", { name: "Subscribe" }).click();
    await shows(form.getByText("Check your inbox: a link there confirms your subscription"));

    const confirmation = await mailTo(email, (mail) =>
      mail.links.some((l) => l.includes("/confirm/")),
    );
    await page.goto(confirmLinkIn(confirmation));
    await page.getByRole("button", { name: "Confirm subscription" }).click();
    await shows(page.getByRole("heading", { name: "You are subscribed" }));
    await page.goto("/@penwright");
    await shows(page.getByRole("heading", { name: "penwright", level: 1 }));
    await expectAccessible(page);
    expectNoProblems(visitor);
    await visitor.context.close();

    // The writer publishes a draft from the full editor, mailing it; they are told to how many.
    const draft = await addPost(api, writer, {
      title: "A second letter",
      category: "Letters",
      status: "draft",
    });
    const desk = await open({ signedIn: writer.token });
    const reach = /^\d+ subscribers? would get it by e-mail, once\.$/;
    // The draft's page: its quick editor offers the same choice, counted when it opens.
    await desk.page.goto(`/posts/details/${draft._id}`);
    await (await ownerMenu(desk.page)).getByRole("button", { name: "Edit Post" }).click();
    const quick = desk.page.getByRole("dialog", { name: "Update Post" });
    await shows(quick.getByText(reach));
    const counted = await quick.getByText(reach).textContent();
    expect(await quick.getByLabel("Publish and e-mail subscribers").isChecked()).toBe(true);
    await desk.page.goto(`/posts/edit/${draft._id}`);
    const offer = desk.page.getByText(reach);
    await shows(offer);
    expect(await offer.textContent()).toBe(counted);
    // The reader above, and whoever subscribed to the whole site before.
    const audience = Number((await offer.textContent())?.split(" ")[0]);
    expect(audience).toBeGreaterThanOrEqual(1);
    expect(await desk.page.getByLabel("Publish and e-mail subscribers").isChecked()).toBe(true);
    await expectAccessible(desk.page);
    // First a test: the mail as subscribers will get it, to the writer alone.
    await desk.page.getByRole("button", { name: "Send me a test e-mail" }).click();
    await shows(desk.page.getByText("A test e-mail is on its way to your inbox"));
    await mailTo(writer.email.toLowerCase(), (mail) => mail.subject === "[Test] A second letter");
    await desk.page.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(desk.page.getByRole("status").getByText("Post published"));

    const letter = await mailTo(email, (mail) => mail.subject === "A second letter");
    expect(letter.text).toContain("/newsletter/unsubscribe/");
    // The writer sees it sent on the post's stats page.
    await desk.page.goto(`/stats/posts/${draft._id}`);
    await shows(desk.page.getByText(new RegExp(`^Sent to ${String(audience)} subscribers?`)));
    expectNoProblems(desk);
    await desk.context.close();
    // Once: nothing more came to the reader than the confirmation and this post.
    const all = (await readOutbox(server.config.dataDir)).filter((mail) => mail.to.includes(email));
    expect(
      all.map((mail) => mail.subject).filter((subject) => subject === "A second letter"),
    ).toHaveLength(1);
    expect(all.some((mail) => mail.subject === "Letters from the coast")).toBe(false);
  });

  it("subscribes from the home page and an author's page without JavaScript", async () => {
    const plain = await open({ javaScriptEnabled: false });
    const { page } = plain;
    await page.goto("/");
    const home = page.getByRole("region", { name: "Get new posts by e-mail" });
    await home.getByLabel("Email").fill("nope");
    await home.getByRole("button", { name: "Subscribe" }).click();
    await page.waitForURL("**/newsletter/subscribe");
    await shows(page.getByText("Email must be a valid email address"));
    expect(await page.getByLabel("Email").inputValue()).toBe("nope");
    await page.getByLabel("Email").fill("home-reader@example.com");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await shows(page.getByText("Check your inbox: a link there confirms your subscription"));
    await mailTo("home-reader@example.com", (mail) =>
      mail.links.some((l) => l.includes("/confirm/")),
    );

    // A visitor goes from a byline to the author's public page, and subscribes to them there.
    await page.goto("/");
    await page.getByRole("link", { name: "penwright" }).first().click();
    await page.waitForURL("**/@penwright");
    await shows(page.getByRole("heading", { name: "penwright", level: 1 }));
    await shows(page.getByRole("link", { name: "Letters from the coast" }));
    await page.getByLabel("Email").fill("author-reader@example.com");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await shows(page.getByRole("heading", { name: "Subscribe to penwright" }));
    await shows(page.getByText("Check your inbox: a link there confirms your subscription"));
    const row = await server.app.deps.db
      .selectFrom("subscriptions")
      .select(["author_id", "status"])
      .where("email", "=", "author-reader@example.com")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ author_id: writer.id, status: "pending" });

    // Nobody of that name, and a segment that is no handle: the site's 404.
    expect((await page.goto("/@nobody-here"))?.status()).toBe(404);
    expect((await page.goto("/no-such-page"))?.status()).toBe(404);
    await shows(page.getByRole("heading", { name: "Page Not Found" }));
    await plain.context.close();
  });

  it("shows a writer their subscribers, imports a Substack list, and removes one", async () => {
    const desk = await open({ signedIn: writer.token });
    const { page } = desk;
    await page.goto("/newsletter/subscribers");
    await shows(page.getByRole("heading", { name: "Subscribers", level: 1 }));
    await shows(page.getByRole("cell", { name: "coast-reader@example.com" }));
    await expectAccessible(page);
    // The CSV download works with the page's session.
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download CSV" }).click();
    const file = await (await download).path();
    expect(await readFile(file, "utf8")).toContain("coast-reader@example.com");
    // Substack's export: email first, then its own columns; one row says the reader left.
    const csv = [
      "email,active_subscription,expiry,plan,email_disabled,created_at",
      "harbour@example.com,false,,free,false,2024-01-02T10:00:00.000Z",
      "Quiet@Example.com,false,,free,true,2024-01-03T10:00:00.000Z",
      "not-an-address,false,,free,false,2024-01-04T10:00:00.000Z",
    ].join("\r\n");
    await page.getByLabel("CSV file").setInputFiles({
      name: "substack.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(csv),
    });
    await page.getByLabel(/They agreed to get these posts/).check();
    await page.getByRole("button", { name: "Import" }).click();
    await shows(page.getByText("Imported 1 address."));
    await shows(page.getByText("Line 3: unsubscribed in the export"));
    await shows(page.getByText("Line 4: not a valid email address"));
    // Searched, then removed.
    await page.getByLabel("Search addresses").fill("harbour");
    await page.getByRole("button", { name: "Show" }).click();
    await shows(page.getByText("1 subscription match."));
    await page.getByRole("button", { name: "Remove harbour@example.com" }).click();
    await shows(page.getByText("No subscribers yet"));
    expectNoProblems(desk);
    await desk.context.close();
  });

  it("lets a member subscribe in one click and leave from Settings", async () => {
    const site = await open({ signedIn: member.token });
    const { page } = site;
    await page.goto("/settings");
    const section = page.getByRole("region", { name: "Newsletters" });
    await shows(section.getByText("No subscriptions yet."));
    await section.getByRole("button", { name: /^Subscribe to / }).click();
    await shows(section.getByText("You are subscribed"));
    await shows(section.getByText(/^Everything on /));
    await expectAccessible(page);
    await section.getByRole("button", { name: /^Unsubscribe from Everything on / }).click();
    await shows(section.getByText("No subscriptions yet."));
    // From a writer's page, in one click: the account's address, verified, is subscribed at once.
    await page.goto("/@penwright");
    await page.getByRole("button", { name: "Subscribe with my account's address" }).click();
    await shows(page.getByText("You are subscribed"));
    await page.goto("/settings");
    await shows(section.getByText("penwright's posts"));
    expectNoProblems(site);
    await site.context.close();
  });
});
