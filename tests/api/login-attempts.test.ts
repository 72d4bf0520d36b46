import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../core/auth/auth-service.js";
import type { Clock } from "../../core/shared/clock.js";
import { PASSWORD } from "../support/factories.js";
import { loopbackAddress, postJsonFrom } from "../support/from-address.js";
import { client } from "../support/http.js";
import { mailedLink } from "../support/mail.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const LOCKED =
  /^Too many failed sign-in attempts for this account, please try again in 1[45] minutes$/;

let now = Date.parse("2030-01-01T00:00:00Z");
const clock: Clock = () => new Date(now);

let server: TestServer;
let counter = 0;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMITS: "on" }, { clock });
});
afterAll(() => server.close());

async function newAccount(target: TestServer = server) {
  counter += 1;
  const email = `account${String(counter)}${Math.random().toString(36).slice(2, 8)}@example.com`;
  await createUser(target.app.deps, {
    username: `acct${String(counter)}`,
    email,
    password: PASSWORD,
    isVerified: true,
  });
  return email;
}

/** One sign-in from an address of its own: only the account is shared between two calls. */
const loginFromNewAddress = (email: string, password: string, target: TestServer = server) =>
  postJsonFrom(target.url, "/api/auth/login", { email, password }, loopbackAddress());

describe("failed sign-ins per account", () => {
  it("refuses the sixth attempt on one account after five failures from five addresses, the right password too", async () => {
    const email = await newAccount();
    for (let i = 0; i < 5; i += 1) {
      const reply = await loginFromNewAddress(email, "Wrong!pass1");
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe("Invalid email or password");
    }
    const locked = await loginFromNewAddress(email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ message: expect.stringMatching(LOCKED) as unknown });
    expect(Number(locked.headers["retry-after"])).toBe(15 * 60);
  });

  it("is lower than the per-address limit, so one address meets the account's message first", async () => {
    const email = await newAccount();
    const address = loopbackAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const reply = await postJsonFrom(
        server.url,
        "/api/auth/login",
        { email, password: "Wrong!pass1" },
        address,
      );
      statuses.push(reply.status);
      if (i === 5) expect(reply.body.message).toMatch(LOCKED);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    // The address is not what was refused: another account signs in from it.
    const other = await newAccount();
    const reply = await postJsonFrom(
      server.url,
      "/api/auth/login",
      { email: other, password: PASSWORD },
      address,
    );
    expect(reply.status).toBe(200);
  });

  it("counts the spellings of one address as one account", async () => {
    const email = await newAccount();
    const spellings = [email, email.toUpperCase(), ` ${email}`, `${email} `, email.toUpperCase()];
    for (const spelling of spellings) {
      expect((await loginFromNewAddress(spelling, "Wrong!pass1")).status).toBe(400);
    }
    expect((await loginFromNewAddress(email, PASSWORD)).status).toBe(429);
  });

  it("locks an address that has no account exactly like one that has (nothing to learn)", async () => {
    const ghost = `ghost${Math.random().toString(36).slice(2, 8)}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await loginFromNewAddress(ghost, "Wrong!pass1")).status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });

  it("counts attempts sent at the same moment: no more than five are ever checked", async () => {
    const email = await newAccount();
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => loginFromNewAddress(email, "Wrong!pass1")),
    );
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses).toEqual([...Array<number>(5).fill(400), ...Array<number>(7).fill(429)]);
  });

  it("forgets the failures of the account's owner once they sign in", async () => {
    const email = await newAccount();
    for (let round = 0; round < 3; round += 1) {
      for (let i = 0; i < 4; i += 1) {
        expect((await loginFromNewAddress(email, "Wrong!pass1")).status).toBe(400);
      }
      expect((await loginFromNewAddress(email, PASSWORD)).status).toBe(200);
    }
  });

  it("opens again when the 15 minutes are over", async () => {
    const email = await newAccount();
    for (let i = 0; i < 5; i += 1) await loginFromNewAddress(email, "Wrong!pass1");
    now += 14 * 60_000;
    const still = await loginFromNewAddress(email, PASSWORD);
    expect(still.status).toBe(429);
    expect(still.body.message).toBe(
      "Too many failed sign-in attempts for this account, please try again in 1 minute",
    );
    now += 60_000;
    expect((await loginFromNewAddress(email, PASSWORD)).status).toBe(200);
  });

  it("opens for the owner who resets the password through the mailed link", async () => {
    const email = await newAccount();
    for (let i = 0; i < 6; i += 1) await loginFromNewAddress(email, "Wrong!pass1");
    expect((await loginFromNewAddress(email, PASSWORD)).status).toBe(429);

    const sent = await postJsonFrom(
      server.url,
      "/api/password/reset-password-link",
      { email },
      loopbackAddress(),
    );
    expect(sent.status).toBe(200);
    const link = await mailedLink(server.dataDir, email, "reset");
    const reset = await postJsonFrom(
      server.url,
      `/api/password${link.pathname}`,
      { password: "N3w!password" },
      loopbackAddress(),
    );
    expect(reset.status).toBe(200);
    expect((await loginFromNewAddress(email, "N3w!password")).status).toBe(200);
  });
});

describe("RATE_LIMITS=off", () => {
  it("does not count failed sign-ins either", async () => {
    const open = await startTestServer({ RATE_LIMITS: "off" });
    try {
      const email = await newAccount(open);
      const api = client(open.url);
      for (let i = 0; i < 8; i += 1) {
        expect((await api.post("/api/auth/login", { email, password: "Wrong!pass1" })).status).toBe(
          400,
        );
      }
      expect((await api.post("/api/auth/login", { email, password: PASSWORD })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Whether the Redis the scale-out tests use is answering here. */
async function redisAnswers(url: string) {
  const { hostname, port } = new URL(url);
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname);
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe.skipIf(!(await redisAnswers(REDIS_URL)))("with REDIS_URL, two instances", () => {
  it("share the count: failures split across both still lock the account on both", async () => {
    const prefix = `test-login-${String(process.pid)}-${Math.random().toString(36).slice(2, 10)}:`;
    const env = { RATE_LIMITS: "on", REDIS_URL, REDIS_PREFIX: prefix };
    const first = await startTestServer(env);
    const second = await startTestServer(env);
    try {
      // Both instances see one account: the second database gets the same address.
      const email = await newAccount(first);
      await createUser(second.app.deps, {
        username: "twin",
        email,
        password: PASSWORD,
        isVerified: true,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const target = i % 2 === 0 ? first : second;
        statuses.push((await loginFromNewAddress(email, "Wrong!pass1", target)).status);
      }
      expect(statuses).toEqual([400, 400, 400, 400, 400]);
      for (const target of [first, second]) {
        const reply = await loginFromNewAddress(email, PASSWORD, target);
        expect(reply.status).toBe(429);
        expect(reply.body.message).toMatch(LOCKED);
      }
    } finally {
      await first.close();
      await second.close();
    }
  });
});
