import { describe, expect, it } from "vitest";
import { buildUser } from "../support/factories.js";
import { client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { mailedLink } from "../support/mail.js";
import { expectAccessible, expectNoProblems, shows, openBrowserSite } from "./browser.js";

const {
  server,
  open,
  users: { owner, other },
} = await openBrowserSite({
  users: { owner: { username: "maria" }, other: { username: "visitor" } },
});

describe("a profile page", () => {
  it("shows another member no owner tools", async () => {
    const site = await open({ signedIn: other.token });
    await site.page.goto(`/profile/${owner.id}`);
    await shows(site.page.getByRole("heading", { name: "maria", level: 1 }));
    for (const control of ["Upload", "Update Profile", "Delete Your Account"]) {
      expect(await site.page.getByRole("button", { name: control }).count()).toBe(0);
    }
    await site.context.close();
  });

  it("lets the owner change the photo and the profile, and the header follows", async () => {
    const site = await open({ signedIn: owner.token });
    const { page } = site;
    await page.goto(`/profile/${owner.id}`);
    await expectAccessible(page);

    const headerPhoto = page.locator(".user-menu summary img");
    const before = await headerPhoto.getAttribute("src");
    await page
      .locator("#field-photo")
      .setInputFiles({ name: "me.txt", mimeType: "text/plain", buffer: Buffer.from("x") });
    await page.getByRole("button", { name: "Upload" }).click();
    await shows(page.getByText("Unsupported File Format"));
    await page
      .locator("#field-photo")
      .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: await pngImage(200, 200) });
    await page.getByRole("button", { name: "Upload" }).click();
    await shows(page.getByRole("status").getByText("Your profile photo uploaded successfully"));
    await expect.poll(() => headerPhoto.getAttribute("src")).not.toBe(before);

    await page.getByRole("button", { name: "Update Profile" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Your Profile" });
    await dialog.getByLabel("Username").fill("ab");
    await dialog.getByLabel("Bio").fill("");
    await dialog.getByLabel("New Password (optional)").fill("123");
    await dialog.getByLabel("Email").fill("not-an-address");
    await dialog.getByRole("button", { name: "Add Social Link" }).click();
    await dialog.getByRole("button", { name: "Update Profile" }).click();
    for (const message of [
      "Username must be at least 3 characters long",
      "Bio is required",
      "Password must be at least 6 characters long",
      "Email must be a valid email address",
      "Required",
      "Url required",
    ]) {
      await shows(dialog.getByText(message, { exact: true }));
    }
    for (let i = 0; i < 4; i += 1)
      await dialog.getByRole("button", { name: "Add Social Link" }).click();
    expect(await dialog.getByRole("button", { name: "Add Social Link" }).isDisabled()).toBe(true);
    for (let i = 5; i > 2; i -= 1)
      await dialog.getByRole("button", { name: `Remove link ${String(i)}` }).click();

    await dialog.getByLabel("Username").fill("mariaK");
    await dialog.getByLabel("Email").fill(owner.email);
    await dialog.getByLabel("Bio").fill("I write about bread.");
    await dialog.getByLabel("New Password (optional)").fill("");
    await dialog.getByLabel("Network 1").selectOption("facebook");
    await dialog.getByLabel("Link 1", { exact: true }).fill("javascript:alert(1)");
    await dialog.getByLabel("Network 2").selectOption("github");
    await dialog.getByLabel("Link 2", { exact: true }).fill("https://github.com/mariak");
    await dialog.getByRole("button", { name: "Update Profile" }).click();
    await shows(dialog.getByText("Url must start with http:// or https://"));
    await dialog.getByLabel("Link 1", { exact: true }).fill("https://facebook.com/mariak");
    await dialog.getByRole("button", { name: "Update Profile" }).click();

    await shows(page.getByRole("status").getByText("profile updated successfully"));
    await shows(page.getByRole("heading", { name: "mariaK", level: 1 }));
    await shows(page.locator(".user-menu summary", { hasText: "mariaK" }));
    await shows(page.getByText("I write about bread."));
    expect(
      await page.locator(".profile").getByRole("link", { name: "github" }).getAttribute("href"),
    ).toBe("https://github.com/mariak");
    expectNoProblems(site);
    await site.context.close();
  });

  it("asks for the current password to change the e-mail, which waits for the new address", async () => {
    const api = client(server.url);
    // A name of its own per attempt (the e2e project retries once).
    const member = await buildUser(server, api, { username: `jonas${String(Date.now() % 1e6)}` });
    // A sign-in older than 15 minutes no longer stands in for the password.
    await server.app.deps.db
      .updateTable("sessions")
      .set({ created_at: new Date(Date.now() - 60 * 60_000).toISOString() })
      .where("user_id", "=", member.id)
      .execute();
    const site = await open({ signedIn: member.token });
    const { page } = site;
    await page.goto(`/profile/${member.id}`);
    await page.getByRole("button", { name: "Update Profile" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Your Profile" });
    const email = `${member.username}.new@example.org`;
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Bio").fill("Bakes bread.");
    await dialog.getByRole("button", { name: "Update Profile" }).click();
    await shows(
      dialog.getByText("Enter your current password to change your email or password", {
        exact: true,
      }),
    );
    await dialog.getByLabel("Current Password (to change e-mail or password)").fill("wrong");
    await dialog.getByRole("button", { name: "Update Profile" }).click();
    await shows(dialog.getByText("Current password is incorrect", { exact: true }));
    await dialog
      .getByLabel("Current Password (to change e-mail or password)")
      .fill(member.password);
    await dialog.getByRole("button", { name: "Update Profile" }).click();
    await shows(page.getByRole("status").getByText("profile updated successfully"));
    await shows(page.getByText(`We sent a link to ${email}.`));

    // The link mailed to the new address, opened in the same (signed-in) browser.
    const link = await mailedLink(server.dataDir, email, "verify");
    await page.goto(link.pathname);
    await shows(
      page.getByRole("heading", { name: "Your email address has been successfully verified" }),
    );
    await page.getByRole("link", { name: "Go To Profile" }).click();
    await shows(page.getByRole("heading", { name: member.username, level: 1 }));
    expect(await page.getByText("We sent a link to").count()).toBe(0);
    expectNoProblems(site);
    await site.context.close();

    // A signed-in browser never uses up someone else's sign-up link: it goes home (SPEC.md 2).
    await api.post("/api/auth/register", {
      username: `stranger${String(Date.now() % 1e6)}`,
      email: `stranger.${member.username}@example.com`,
      password: "Stranger-1!",
    });
    const signUp = await mailedLink(
      server.dataDir,
      `stranger.${member.username}@example.com`,
      "verify",
    );
    const home = await fetch(`${server.url}${signUp.pathname}`, {
      headers: { accept: "text/html", cookie: `session=${member.token}` },
      redirect: "manual",
    });
    expect(home.status).toBe(302);
    expect((await api.get(signUp.pathname)).status).toBe(200);
  });

  it("lets the owner delete the account, then signs them out", async () => {
    const site = await open({ signedIn: owner.token });
    const { page } = site;
    await page.goto(`/profile/${owner.id}`);
    await page.getByRole("button", { name: "Delete Your Account" }).click();
    await shows(page.getByText("Once deleted, you will not be able to recover this comment!"));
    await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await shows(page.getByRole("link", { name: "Login" }));
    await shows(page.getByRole("status").getByText("Your profile has been deleted"));
    const login = await client(server.url).post("/api/auth/login", {
      email: owner.email,
      password: owner.password,
    });
    expect(login.status).toBe(400);
    await site.context.close();
  });
});
