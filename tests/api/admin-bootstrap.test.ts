import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAdmin } from "../../core/users/bootstrap-admin.js";
import { buildUser, signInAdmin } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { ADMIN_EMAIL, startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
let api: Client;
const created: { email: string; password: string }[] = [];

beforeAll(async () => {
  server = await startTestServer(
    {},
    { onAdminCreated: (credentials) => created.push(credentials) },
  );
  api = client(server.url);
});
afterAll(() => server.close());

describe("admin bootstrap", () => {
  it("ensures the verified admin of ADMIN_EMAIL and ADMIN_PASSWORD, printing nothing", async () => {
    const admin = await signInAdmin(server, api);
    expect((await api.get("/api/users/count", { token: admin.token })).status).toBe(200);
    expect(created).toEqual([]);
  });

  it("makes an existing account of ADMIN_EMAIL admin and verified, keeping its password", async () => {
    const user = await buildUser(server, api);
    expect((await api.get("/api/users/count", { token: user.token })).status).toBe(403);
    expect(
      await ensureAdmin(server.app.deps, { email: user.email, password: "Other!pass1" }),
    ).toBeUndefined();
    expect((await api.get("/api/users/count", { token: user.token })).status).toBe(200);
    const login = await api.post("/api/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(200);
  });

  it("creates nothing when an admin exists and no e-mail is configured", async () => {
    expect(await ensureAdmin(server.app.deps, {})).toBeUndefined();
    const admins = await server.app.deps.db
      .selectFrom("users")
      .select("email")
      .where("is_admin", "=", 1)
      .execute();
    expect(admins.map((a) => a.email)).toContain(ADMIN_EMAIL);
    expect(admins).toHaveLength(2);
  });

  it("creates an admin with a generated password when there is none", async () => {
    await server.app.deps.db.updateTable("users").set({ is_admin: 0 }).execute();
    await server.app.deps.db.deleteFrom("users").where("email_key", "=", ADMIN_EMAIL).execute();
    const credentials = await ensureAdmin(server.app.deps, {});
    expect(credentials?.email).toBe(ADMIN_EMAIL);
    const login = await api.post<{ isAdmin: boolean }>("/api/auth/login", credentials);
    expect(login.status).toBe(200);
    expect(login.body.isAdmin).toBe(true);
  });
});
