import { randomUUID } from "node:crypto";
import { brotliDecompressSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUser, loginAs, PASSWORD, signInAdmin, type TestUser } from "../support/factories.js";
import { assertNoSecrets, rawGet } from "../support/http.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { type ErrorBody } from "../support/post-fixtures.js";
import { openTestSite } from "../support/site.js";

const { server, api } = await openTestSite();
failOnServerErrors(() => server);

interface Profile {
  _id: string;
  id: string;
  username: string;
  email?: string;
  bio: string;
  profilePhoto: { url: string };
  socialMedia: { name: string; url: string }[];
  posts: unknown[];
  createdAt: string;
}

interface AdminUserRow extends Profile {
  email: string;
  isAdmin: boolean;
  isVerified: boolean;
}

const profilePath = (id: string) => `/api/users/profile/${id}`;

/** A complete, valid profile edit that changes nothing but the bio. */
const validEdit = (user: TestUser) => ({
  username: user.username,
  email: user.email,
  bio: "Writes about databases",
  socialMedia: [] as { name: string; url: string }[],
});

/** True while the token is a live session: the owner-only edit answers 200, not 401. */
async function tokenWorks(user: TestUser, token: string) {
  const reply = await api.put(profilePath(user.id), validEdit(user), { token });
  if (reply.status !== 200 && reply.status !== 401) throw new Error(reply.text);
  return reply.status === 200;
}

async function usersInDatabase() {
  const row = await server.app.deps.db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe("GET /api/users/count", () => {
  it("answers 401 without a token", async () => {
    const reply = await api.get<ErrorBody>("/api/users/count");
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ message: "No token provided, please log in" });
  });

  it("answers 401 with a token that is not a session", async () => {
    const reply = await api.get<ErrorBody>("/api/users/count", { token: "x".repeat(43) });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ message: "Your session has expired, please log in again" });
  });

  it("answers 403 to a user who is not an admin", async () => {
    const user = await buildUser(server, api);
    const reply = await api.get<ErrorBody>("/api/users/count", { token: user.token });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ message: "Only admins may do this" });
  });

  it("gives an admin the number of accounts", async () => {
    const admin = await signInAdmin(server, api);
    const before = await api.get<{ userCount: number }>("/api/users/count", { token: admin.token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ userCount: await usersInDatabase() });

    await buildUser(server, api);
    const after = await api.get<{ userCount: number }>("/api/users/count", { token: admin.token });
    expect(after.body).toEqual({ userCount: before.body.userCount + 1 });
  });
});

describe("GET /api/users/profile (the admin's user list)", () => {
  it("answers 401 without a token", async () => {
    const reply = await api.get<ErrorBody>("/api/users/profile");
    expect(reply.status).toBe(401);
  });

  it("answers 403 to a user who is not an admin", async () => {
    const user = await buildUser(server, api);
    const reply = await api.get<ErrorBody>("/api/users/profile", { token: user.token });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ message: "Only admins may do this" });
  });

  it("lists every account with e-mail and flags for an admin", async () => {
    const admin = await signInAdmin(server, api);
    const user = await buildUser(server, api);
    const reply = await api.get<AdminUserRow[]>("/api/users/profile", { token: admin.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(await usersInDatabase());
    expect(reply.body.find((row) => row._id === user.id)).toEqual({
      _id: user.id,
      id: user.id,
      username: user.username,
      email: user.email,
      bio: "",
      isAdmin: false,
      isVerified: true,
      suspended: false,
      profilePhoto: { url: server.app.deps.site.defaultAvatarUrl },
      createdAt: expect.any(String) as unknown,
    });
    expect(reply.body.find((row) => row._id === admin.id)).toMatchObject({
      email: admin.email,
      isAdmin: true,
    });
  });

  it("is sent brotli-compressed to a client that accepts br", async () => {
    const admin = await signInAdmin(server, api);
    for (let i = 0; i < 15; i += 1) await buildUser(server, api);

    const reply = await rawGet(`${server.url}/api/users/profile`, {
      authorization: `Bearer ${admin.token}`,
      "accept-encoding": "br",
    });
    expect(reply.status).toBe(200);
    expect(reply.headers["content-encoding"]).toBe("br");
    const json = brotliDecompressSync(reply.body).toString("utf8");
    assertNoSecrets(json);
    expect(json.length, "the list must be over the 1 KB compression threshold").toBeGreaterThan(
      1024,
    );
    expect(reply.body.length).toBeLessThan(json.length);
    expect(JSON.parse(json)).toHaveLength(await usersInDatabase());
  });

  it("is sent uncompressed to a client that accepts no encoding", async () => {
    const admin = await signInAdmin(server, api);
    const reply = await rawGet(`${server.url}/api/users/profile`, {
      authorization: `Bearer ${admin.token}`,
      "accept-encoding": "identity",
    });
    expect(reply.status).toBe(200);
    expect(reply.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(reply.body.toString("utf8"))).toHaveLength(await usersInDatabase());
  });
});

describe("GET /api/users/profile/:id", () => {
  it("answers 404 for an unknown id", async () => {
    const reply = await api.get<ErrorBody>(profilePath(randomUUID()));
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ message: "User not found" });
  });

  it("answers 404 for a malformed id", async () => {
    for (const id of ["abc", encodeURIComponent("'; drop table users; --")]) {
      const reply = await api.get<ErrorBody>(profilePath(id));
      expect(reply.status, id).toBe(404);
      expect(reply.body).toEqual({ message: "User not found" });
    }
  });

  // The router refuses an over-long parameter before any route; it still answers 404 in the envelope.
  it("answers 404 with the error envelope for an overlong id", async () => {
    const reply = await api.get<ErrorBody>(profilePath("a".repeat(300)));
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ message: expect.any(String) as unknown });
  });

  it("shows the public profile to a visitor, without the e-mail", async () => {
    const user = await buildUser(server, api);
    const reply = await api.get<Profile>(profilePath(user.id));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      _id: user.id,
      id: user.id,
      username: user.username,
      bio: "",
      profilePhoto: { url: server.app.deps.site.defaultAvatarUrl },
      socialMedia: [],
      posts: [],
      createdAt: expect.any(String) as unknown,
      // DESIGN.md 9: follower and following counts (decision 016).
      followersCount: 0,
      followingCount: 0,
    });
    expect(new Date(reply.body.createdAt).toISOString()).toBe(reply.body.createdAt);
    expect(reply.text).not.toContain(user.email);
  });

  it("hides the e-mail from another signed-in user", async () => {
    const user = await buildUser(server, api);
    const other = await buildUser(server, api);
    const reply = await api.get<Profile>(profilePath(user.id), { token: other.token });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty("email");
    expect(reply.text).not.toContain(user.email);
  });

  it("shows the e-mail to its owner and to an admin", async () => {
    const user = await buildUser(server, api);
    const admin = await signInAdmin(server, api);
    for (const token of [user.token, admin.token]) {
      const reply = await api.get<Profile>(profilePath(user.id), { token });
      expect(reply.status).toBe(200);
      expect(reply.body.email).toBe(user.email);
    }
  });
});

describe("PUT /api/users/profile/:id: who may edit", () => {
  it("answers 401 without a token or with a dead one", async () => {
    const user = await buildUser(server, api);
    const none = await api.put<ErrorBody>(profilePath(user.id), validEdit(user));
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: "No token provided, please log in" });
    const dead = await api.put<ErrorBody>(profilePath(user.id), validEdit(user), {
      token: "y".repeat(43),
    });
    expect(dead.status).toBe(401);
    expect(dead.body).toEqual({ message: "Your session has expired, please log in again" });
  });

  it("answers 403 to another user and to an admin, and changes nothing", async () => {
    const owner = await buildUser(server, api);
    const other = await buildUser(server, api);
    const admin = await signInAdmin(server, api);
    for (const token of [other.token, admin.token]) {
      const reply = await api.put<ErrorBody>(
        profilePath(owner.id),
        { ...validEdit(owner), username: "hijacked", bio: "not mine" },
        { token },
      );
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ message: "You can only edit your own profile" });
    }
    const profile = await api.get<Profile>(profilePath(owner.id));
    expect(profile.body).toMatchObject({ username: owner.username, bio: "" });
  });

  it("answers 404 for an unknown or malformed id", async () => {
    const user = await buildUser(server, api);
    for (const id of [randomUUID(), "abc"]) {
      const reply = await api.put<ErrorBody>(profilePath(id), validEdit(user), {
        token: user.token,
      });
      expect(reply.status, id).toBe(404);
      expect(reply.body).toEqual({ message: "User not found" });
    }
  });
});

describe("PUT /api/users/profile/:id: validation (SPEC.md 5, Profile edit)", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await buildUser(server, api);
  });

  const link = (name: string, url: string) => ({ name, url });
  const fiveLinks = [
    link("facebook", "https://facebook.com/someone"),
    link("linkedin", "https://www.linkedin.com/in/someone"),
    link("github", "https://github.com/someone"),
    link("whatsapp", "+49 170 1234567"),
    link("gmail", "someone@gmail.com"),
  ];

  // A field set to undefined is left out of the JSON body: the "missing" case.
  // prettier-ignore
  const cases: { rule: string; edit: Record<string, unknown>; field: string; message: string }[] = [
    { rule: "username missing", edit: { username: undefined }, field: "username", message: "Username is required" },
    { rule: "username empty", edit: { username: "" }, field: "username", message: "Username is required" },
    { rule: "username only spaces", edit: { username: "    " }, field: "username", message: "Username is required" },
    { rule: "username not a string", edit: { username: 12345 }, field: "username", message: "Username is required" },
    { rule: "username of 2 characters", edit: { username: "ab" }, field: "username", message: "Username must be at least 3 characters long" },
    { rule: "username of 16 characters", edit: { username: "a".repeat(16) }, field: "username", message: "Username must be at most 15 characters long" },
    { rule: "password of 5 characters", edit: { password: "Ab1!x" }, field: "password", message: "Password must be at least 6 characters long" },
    { rule: "password of 129 characters", edit: { password: "a".repeat(129) }, field: "password", message: "Password must be at most 128 characters long" },
    { rule: "e-mail missing", edit: { email: undefined }, field: "email", message: "Email is required" },
    { rule: "e-mail empty", edit: { email: "" }, field: "email", message: "Email is required" },
    { rule: "e-mail without @", edit: { email: "someone.example.com" }, field: "email", message: "Email must be a valid email address" },
    { rule: "e-mail without a domain dot", edit: { email: "someone@example" }, field: "email", message: "Email must be a valid email address" },
    { rule: "e-mail over 254 characters", edit: { email: `${"a".repeat(250)}@example.com` }, field: "email", message: "Email must be a valid email address" },
    { rule: "bio missing", edit: { bio: undefined }, field: "bio", message: "Bio is required" },
    { rule: "bio empty", edit: { bio: "" }, field: "bio", message: "Bio is required" },
    { rule: "bio of 201 characters", edit: { bio: "b".repeat(201) }, field: "bio", message: "Bio must be at most 200 characters long" },
    { rule: "social link without a name", edit: { socialMedia: [{ url: "https://github.com/x" }] }, field: "socialMedia.0.name", message: "Required" },
    { rule: "social link with an unknown name", edit: { socialMedia: [link("twitter", "https://twitter.com/x")] }, field: "socialMedia.0.name", message: "Required" },
    { rule: "social link without a url", edit: { socialMedia: [{ name: "github" }] }, field: "socialMedia.0.url", message: "Url required" },
    { rule: "social link with an empty url", edit: { socialMedia: [link("github", "")] }, field: "socialMedia.0.url", message: "Url required" },
    { rule: "social url over 300 characters", edit: { socialMedia: [link("github", `https://github.com/${"x".repeat(300)}`)] }, field: "socialMedia.0.url", message: "Url must be at most 300 characters long" },
    { rule: "six social links", edit: { socialMedia: [...fiveLinks, link("github", "https://github.com/other")] }, field: "socialMedia", message: "At most 5 social links" },
    { rule: "a javascript: url for facebook", edit: { socialMedia: [link("facebook", "javascript:alert(1)")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a data: url for github", edit: { socialMedia: [link("github", "data:text/html,<script>alert(1)</script>")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a vbscript: url for linkedin", edit: { socialMedia: [link("linkedin", "vbscript:msgbox(1)")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a javascript: url in capitals", edit: { socialMedia: [link("github", "JavaScript:alert(1)")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a javascript: url behind spaces", edit: { socialMedia: [link("github", "  javascript:alert(1)")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a javascript: url with a tab in the scheme", edit: { socialMedia: [link("github", "java\tscript:alert(1)")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a file: url", edit: { socialMedia: [link("facebook", "file:///etc/passwd")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a scheme-relative url", edit: { socialMedia: [link("facebook", "//evil.example/x")] }, field: "socialMedia.0.url", message: "Url must start with http:// or https://" },
    { rule: "a javascript: url dressed as a gmail address", edit: { socialMedia: [link("gmail", "javascript:alert(1)//@x.co")] }, field: "socialMedia.0.url", message: "Url must be an email address" },
    { rule: "a gmail link that is not an address", edit: { socialMedia: [link("gmail", "https://mail.google.com")] }, field: "socialMedia.0.url", message: "Url must be an email address" },
    { rule: "a whatsapp link that is not a phone number", edit: { socialMedia: [link("whatsapp", "call me maybe")] }, field: "socialMedia.0.url", message: "Url must be a phone number" },
    { rule: "a bad link after a good one", edit: { socialMedia: [fiveLinks[2], link("whatsapp", "https://wa.me/1")] }, field: "socialMedia.1.url", message: "Url must be a phone number" },
  ];

  it.each(cases)("refuses $rule with 400 '$message'", async ({ edit, field, message }) => {
    const reply = await api.put<ErrorBody>(
      profilePath(user.id),
      { ...validEdit(user), ...edit },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.message).toBe(message);
    expect(reply.body.errors?.[field]).toBe(message);
  });

  it("reports every invalid field at once", async () => {
    const reply = await api.put<ErrorBody>(
      profilePath(user.id),
      { username: "ab", email: "nope", bio: "", password: "123" },
      { token: user.token },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual({
      username: "Username must be at least 3 characters long",
      email: "Email must be a valid email address",
      bio: "Bio is required",
      password: "Password must be at least 6 characters long",
    });
  });

  it("refuses a body that is not a JSON object", async () => {
    const reply = await api.raw("PUT", profilePath(user.id), "[1,2]", {
      token: user.token,
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
  });

  it("leaves the profile untouched after a refused edit", async () => {
    await api.put(
      profilePath(user.id),
      { ...validEdit(user), username: "changed", bio: "b".repeat(201) },
      { token: user.token },
    );
    const profile = await api.get<Profile>(profilePath(user.id));
    expect(profile.body.username).toBe(user.username);
    expect(profile.body.bio).not.toBe("b".repeat(201));
  });

  it("accepts the limits: 3 and 15 character usernames, a 200 character bio, five links", async () => {
    for (const username of ["abc", "a".repeat(15)]) {
      const edit = { ...validEdit(user), username, bio: "b".repeat(200), socialMedia: fiveLinks };
      const reply = await api.put<Profile>(profilePath(user.id), edit, { token: user.token });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ username, bio: "b".repeat(200), socialMedia: fiveLinks });
    }
  });

  it("accepts a gmail link written as a mailto: address", async () => {
    const socialMedia = [link("gmail", "mailto:someone@gmail.com")];
    const reply = await api.put<Profile>(
      profilePath(user.id),
      { ...validEdit(user), socialMedia },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.socialMedia).toEqual(socialMedia);
  });
});

describe("PUT /api/users/profile/:id: e-mail", () => {
  it("answers 409 when another account has the address, in any case", async () => {
    const user = await buildUser(server, api);
    const other = await buildUser(server, api);
    for (const email of [other.email, other.email.toUpperCase()]) {
      const reply = await api.put<ErrorBody>(
        profilePath(user.id),
        { ...validEdit(user), email },
        { token: user.token },
      );
      expect(reply.status, email).toBe(409);
      expect(reply.body).toEqual({ message: "Email is already in use" });
    }
    const mine = await api.get<Profile>(profilePath(user.id), { token: user.token });
    expect(mine.body.email).toBe(user.email);
  });

  it("lets the owner change the case of their own address", async () => {
    const user = await buildUser(server, api);
    const email = user.email.toUpperCase();
    const reply = await api.put<Profile>(
      profilePath(user.id),
      { ...validEdit(user), email },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.email).toBe(email);
  });
  // A new address waits for its owner to confirm it: tests/api/account-changes.test.ts.
});

describe("PUT /api/users/profile/:id: password", () => {
  it("with a new password, ends the owner's other sessions but keeps the one that changed it", async () => {
    const user = await buildUser(server, api);
    const otherSession = await loginAs(api, user.email, user.password);
    expect(await tokenWorks(user, otherSession)).toBe(true);

    const reply = await api.put(
      profilePath(user.id),
      { ...validEdit(user), password: "newpass" },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);

    expect(await tokenWorks(user, otherSession)).toBe(false);
    expect(await tokenWorks(user, user.token)).toBe(true);
    await loginAs(api, user.email, "newpass");
    const old = await api.post<ErrorBody>("/api/auth/login", {
      email: user.email,
      password: user.password,
    });
    expect(old.status).toBe(400);
    expect(old.body).toEqual({ message: "Invalid email or password" });
  });

  it("with an empty password, keeps the old password and every session", async () => {
    const user = await buildUser(server, api);
    const otherSession = await loginAs(api, user.email, user.password);

    const reply = await api.put(
      profilePath(user.id),
      { ...validEdit(user), password: "" },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);

    expect(await tokenWorks(user, otherSession)).toBe(true);
    await loginAs(api, user.email, PASSWORD);
  });

  it("without a password field, keeps the old password and every session", async () => {
    const user = await buildUser(server, api);
    const otherSession = await loginAs(api, user.email, user.password);
    const reply = await api.put(profilePath(user.id), validEdit(user), { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    expect(await tokenWorks(user, otherSession)).toBe(true);
    await loginAs(api, user.email, PASSWORD);
  });
});

describe("PUT /api/users/profile/:id: a successful edit", () => {
  it("answers the updated profile, which the public profile then shows", async () => {
    const user = await buildUser(server, api);
    const edit = {
      username: "Renamed",
      email: `renamed.${user.username}@example.com`,
      bio: "Backend developer, writes about SQL",
      password: "another1",
      socialMedia: [
        { name: "github", url: "https://github.com/renamed" },
        { name: "whatsapp", url: "+1 555 0100" },
        { name: "gmail", url: "renamed@gmail.com" },
      ],
    };
    const reply = await api.put<Profile>(profilePath(user.id), edit, { token: user.token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      _id: user.id,
      id: user.id,
      username: edit.username,
      bio: edit.bio,
      socialMedia: edit.socialMedia,
      profilePhoto: { url: server.app.deps.site.defaultAvatarUrl },
      // The address changes once the link mailed to it is opened.
      email: user.email,
      pendingEmail: edit.email,
    });
    expect(reply.body).not.toHaveProperty("password");

    const shown = await api.get<Profile>(profilePath(user.id));
    expect(shown.body).toMatchObject({
      username: edit.username,
      bio: edit.bio,
      socialMedia: edit.socialMedia,
    });
    expect(shown.body).not.toHaveProperty("email");
  });

  it("ignores fields a user may not set, such as isAdmin", async () => {
    const user = await buildUser(server, api);
    const reply = await api.put(
      profilePath(user.id),
      { ...validEdit(user), isAdmin: true, is_admin: 1, isVerified: false, photo_key: "x" },
      { token: user.token },
    );
    expect(reply.status, reply.text).toBe(200);
    const row = await server.app.deps.db
      .selectFrom("users")
      .select(["is_admin", "is_verified", "photo_key"])
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_admin: 0, is_verified: 1, photo_key: null });
    const count = await api.get("/api/users/count", { token: user.token });
    expect(count.status).toBe(403);
  });
});
