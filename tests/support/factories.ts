import { expect } from "vitest";
import { createUser } from "../../core/auth/auth-service.js";
import type { Client } from "./http.js";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestServer } from "./test-server.js";

export interface TestUser {
  id: string;
  username: string;
  email: string;
  password: string;
  token: string;
}

let counter = 0;

export const PASSWORD = "Secret-Pass1!";

/** A verified user straight into the database (the sign-up flow has its own tests), then logged in. */
export async function buildUser(
  server: TestServer,
  api: Client,
  overrides: { username?: string; email?: string; password?: string; isAdmin?: boolean } = {},
): Promise<TestUser> {
  counter += 1;
  const username =
    overrides.username ?? `user${String(counter)}${Math.random().toString(36).slice(2, 6)}`;
  const email = overrides.email ?? `${username.toLowerCase()}@example.com`;
  const password = overrides.password ?? PASSWORD;
  const row = await createUser(server.app.deps, {
    username,
    email,
    password,
    isAdmin: overrides.isAdmin ?? false,
    isVerified: true,
  });
  const token = await loginAs(api, email, password);
  return { id: row.id, username, email, password, token };
}

export async function loginAs(api: Client, email: string, password: string) {
  const reply = await api.post<{ token: string }>("/api/auth/login", { email, password });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.token;
}

/** The admin that start-up ensures from ADMIN_EMAIL and ADMIN_PASSWORD. */
export async function signInAdmin(server: TestServer, api: Client): Promise<TestUser> {
  const user = await server.app.deps.db
    .selectFrom("users")
    .select(["id", "username"])
    .where("email_key", "=", ADMIN_EMAIL)
    .executeTakeFirstOrThrow();
  const token = await loginAs(api, ADMIN_EMAIL, ADMIN_PASSWORD);
  return { ...user, email: ADMIN_EMAIL, password: ADMIN_PASSWORD, token };
}
