import { beforeAll, describe, expect, it } from "vitest";
import { EMAIL_MAX } from "../../contract/limits.js";
import { USERS_PAGE_SIZE, userListMessages } from "../../contract/users.js";
import { createUser } from "../../core/auth/auth-service.js";
import { PASSWORD } from "../support/factories.js";
import type { ErrorBody } from "../support/post-fixtures.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";

// The admin's user list searched and paged (issue 50): `GET /api/users/profile?q=&pageNumber=n`
// and `GET /api/users/count?q=`. Without them both answer as SPEC.md's calls did (users.test.ts).

const {
  server,
  api,
  admin,
  users: { member },
} = await openTestSite({ users: ["member"] });
failOnServerErrors(() => server);

interface AdminUserRow {
  _id: string;
  username: string;
  email: string;
  isAdmin: boolean;
  createdAt: string;
}

/** As the admin by default; `null` sends no token. */
const as = (token: string | null) => (token === null ? {} : { token });
const search = (query: string, token: string | null = admin.token) =>
  api.get<{ total: number; users: AdminUserRow[] }>(`/api/admin/users${query}`, as(token));
/** The accounts a search answers with. */
const list = async (query: string, token: string | null = admin.token) => {
  const reply = await search(query, token);
  return { ...reply, body: reply.body.users };
};
/** How many accounts a search finds in all. */
const count = async (query: string) => ({ userCount: (await search(query)).body.total });

/** Accounts straight into the database, as the factory makes them, without signing each in. */
async function addAccount(username: string, email = `${username.toLowerCase()}@example.com`) {
  await createUser(server.app.deps, {
    username,
    email,
    password: PASSWORD,
    isAdmin: false,
    isVerified: true,
  });
}

/** The admin, the member and these: 46 accounts, three pages of 20 (the last one of 6). */
const TOTAL = 46;

beforeAll(async () => {
  for (let i = 0; i < 40; i += 1) await addAccount(`Reader${String(i)}`);
  await addAccount("HeronBlue");
  await addAccount("heronGrey", "grey.bird@Example.com");
  // LIKE's own wildcards, which a search takes literally.
  await addAccount("Plain", "under_score@example.com");
  await addAccount("Percent", "fifty%off@example.com");
});

describe("GET /api/admin/users?q=&pageNumber=n", () => {
  it("answers 401 without a token", async () => {
    const reply = await search("?q=heron&pageNumber=1", null);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ message: "No token provided, please log in" });
  });

  it("answers 403 to a member who is not an admin", async () => {
    const reply = await search("?q=heron&pageNumber=1", member.token);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ message: "Only admins may do this" });
  });

  it.each(["0", "-1", "abc", "1.5", "01", ""])("answers 400 for pageNumber=%j", async (page) => {
    const reply = await search(`?pageNumber=${page}`);
    expect(reply.status, reply.text).toBe(400);
    const body = reply.body as unknown as ErrorBody;
    expect(body.message).toBe("pageNumber must be a whole number from 1");
    expect(body.errors?.pageNumber).toBe(body.message);
  });

  it("answers 400 for a search longer than an address can be, or given twice", async () => {
    const long = "a".repeat(EMAIL_MAX + 1);
    const reply = await search(`?q=${long}`);
    expect(reply.status, reply.text).toBe(400);
    expect((reply.body as unknown as ErrorBody).message).toBe(userListMessages.searchTooLong);
    const twice = await search("?q=a&q=b");
    expect(twice.status, twice.text).toBe(400);
    expect((twice.body as unknown as ErrorBody).message).toBe(userListMessages.searchInvalid);
  });

  it("finds accounts by a part of the username or the e-mail, in any case", async () => {
    const byName = await list("?q=HERON");
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body.map((user) => user.username).sort()).toEqual(["HeronBlue", "heronGrey"]);
    expect(await count("?q=HERON")).toEqual({ userCount: 2 });

    const byEmail = await list("?q=Bird%40EXAMPLE");
    expect(byEmail.body.map((user) => user.username)).toEqual(["heronGrey"]);
    // The address as it was given, not its lowercased key.
    expect(byEmail.body[0]?.email).toBe("grey.bird@Example.com");

    expect((await list("?q=%20%20reader1%20")).body).toHaveLength(11);
    expect((await list("?q=nobody-here")).body).toEqual([]);
    expect(await count("?q=nobody-here")).toEqual({ userCount: 0 });
  });

  it("takes % and _ in a search as themselves", async () => {
    expect((await list("?q=_")).body.map((user) => user.username)).toEqual(["Plain"]);
    expect((await list("?q=%25")).body.map((user) => user.username)).toEqual(["Percent"]);
    expect(await count("?q=_")).toEqual({ userCount: 1 });
  });

  it("gives pages of 20, newest first, that together are the whole list", async () => {
    const all = await list("");
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(TOTAL);
    const pages = [];
    for (const page of [1, 2, 3]) {
      const reply = await list(`?pageNumber=${String(page)}`);
      expect(reply.status, reply.text).toBe(200);
      pages.push(reply.body);
    }
    expect(pages.map((page) => page.length)).toEqual([USERS_PAGE_SIZE, USERS_PAGE_SIZE, 6]);
    expect(pages.flat()).toEqual(all.body);
    const created = all.body.map((user) => user.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect((await list("?pageNumber=4")).body).toEqual([]);
    expect(await count("")).toEqual({ userCount: TOTAL });
  });

  it("pages a search", async () => {
    const found = await list("?q=reader");
    expect(found.body).toHaveLength(40);
    const second = await list("?q=reader&pageNumber=2");
    expect(second.body).toEqual(found.body.slice(USERS_PAGE_SIZE, 2 * USERS_PAGE_SIZE));
    expect(await count("?q=reader")).toEqual({ userCount: 40 });
  });

  it("answers an empty search or unknown parameters as the plain list", async () => {
    const all = await list("");
    expect((await list("?q=")).body).toEqual(all.body);
    expect((await list("?sort=name")).body).toEqual(all.body);
    expect(await count("?q=")).toEqual({ userCount: TOTAL });
  });
});

describe("SPEC.md's calls beside it", () => {
  it("still answer every account, whatever query they are given", async () => {
    const all = await api.get<AdminUserRow[]>("/api/users/profile", as(admin.token));
    expect(all.body).toHaveLength(TOTAL);
    for (const query of ["?q=heron", "?pageNumber=2", "?pageNumber=abc"]) {
      const reply = await api.get<AdminUserRow[]>(`/api/users/profile${query}`, as(admin.token));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual(all.body);
      const counted = await api.get(`/api/users/count${query}`, as(admin.token));
      expect(counted.body).toEqual({ userCount: TOTAL });
    }
  });
});
