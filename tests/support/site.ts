import { afterAll } from "vitest";
import type { AppOptions } from "../../server/app.js";
import { buildUser, signInAdmin, type TestUser } from "./factories.js";
import { client, type Client } from "./http.js";
import { addCategory } from "./post-fixtures.js";
import { startTestServer, type TestServer } from "./test-server.js";

export interface TestSite<Name extends string> {
  server: TestServer;
  api: Client;
  /** The admin start-up made, signed in. */
  admin: TestUser;
  /** Verified members, signed in, by the names the file gave them. */
  users: Record<Name, TestUser>;
}

/**
 * The set-up most API test files share: a fresh server (its own database), the admin signed in,
 * members made and categories added, in that order; the server closes after the file's tests.
 * Called at the top of a file: `const { server, api, users: { author } } = await openTestSite(...)`.
 */
export async function openTestSite<const Name extends string = never>(
  options: {
    env?: Record<string, string>;
    app?: AppOptions;
    /** Their names, or their names with what each is made with (a username to show). */
    users?: readonly Name[] | Record<Name, { username?: string }>;
    categories?: readonly string[];
    /** `localhost` where a browser must see a domain (WebAuthn). */
    host?: "127.0.0.1" | "localhost";
  } = {},
): Promise<TestSite<Name>> {
  const server = await startTestServer(options.env, options.app, options.host);
  afterAll(() => server.close());
  const api = client(server.url);
  const admin = await signInAdmin(server, api);
  const users = {} as Record<Name, TestUser>;
  const wanted: [Name, { username?: string }][] = Array.isArray(options.users)
    ? options.users.map((name: Name) => [name, {}])
    : (Object.entries(options.users ?? {}) as [Name, { username?: string }][]);
  for (const [name, made] of wanted) users[name] = await buildUser(server, api, made);
  for (const title of options.categories ?? []) await addCategory(api, admin, title);
  return { server, api, admin, users };
}
