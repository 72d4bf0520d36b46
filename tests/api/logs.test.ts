import { mkdir, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mailedLink } from "../support/mail.js";
import { openTestSite } from "../support/site.js";

const { server, api } = await openTestSite();

describe("request logs", () => {
  it("never hold a password, a token, a hash or a mailed secret", async () => {
    const before = server.logs.length;
    const email = "logged@example.com";
    const password = "L0gged!secret";
    await api.post("/api/auth/register", { username: "logged", email, password });
    const verify = await mailedLink(server.dataDir, email, "verify");
    await api.get(verify.pathname);
    const login = await api.post<{ token: string }>("/api/auth/login", { email, password });
    const token = login.body.token;
    await api.get("/api/users/count", { token });
    await api.post("/api/password/reset-password-link", { email });
    const reset = await mailedLink(server.dataDir, email, "reset");
    await api.get(`/api/password${reset.pathname}`);
    await api.post(`/api/password${reset.pathname}`, { password: "N3w!secret1" });

    const requestLines = server.logs.slice(before).filter((line) => line.includes('"req"'));
    expect(requestLines.length).toBe(7);
    const all = server.logs.join("\n");
    const verifySecret = verify.pathname.split("/").at(-1) ?? "";
    const resetSecret = reset.pathname.split("/").at(-1) ?? "";
    for (const secret of [password, "N3w!secret1", token, "$argon2"]) {
      expect(all).not.toContain(secret);
    }
    // The outbox line names the link on purpose (no SMTP: it is how a fresh install signs up);
    // request lines never do.
    for (const secret of [verifySecret, resetSecret]) {
      expect(requestLines.join("\n")).not.toContain(secret);
    }
    expect(requestLines.join("\n")).toContain("/verify/[redacted]");
    expect(all.toLowerCase()).not.toContain("authorization");
  });
});

interface LogLine {
  level: number;
  msg: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as LogLine);

describe("one line per request", () => {
  it("says method, path, status and time once per request at the default level", async () => {
    const seen = server.logs.length;
    await api.get("/api/categories");
    await api.get("/api/posts/000000000000000000000000");
    await api.get("/no-such-page-here");
    await api.post("/api/auth/login", { email: "nobody@example.com", password: "Wr0ng!pass" });

    const lines = parsed(server.logs.slice(seen));
    expect(lines.map((line) => line.msg)).toEqual([
      "request completed",
      "request completed",
      "request completed",
      "request completed",
    ]);
    expect(lines.map((line) => `${line.req?.method ?? ""} ${line.req?.url ?? ""}`)).toEqual([
      "GET /api/categories",
      "GET /api/posts/000000000000000000000000",
      "GET /no-such-page-here",
      "POST /api/auth/login",
    ]);
    expect(lines.map((line) => line.res?.statusCode)).toEqual([200, 404, 404, 400]);
    for (const line of lines) {
      expect(line.level).toBe(30);
      expect(typeof line.responseTime).toBe("number");
    }
  });

  it("does not log a client that leaves before its answer is sent at info", async () => {
    // A file big enough that its answer is still streaming when the client hangs up.
    await mkdir(path.join(server.dataDir, "uploads"), { recursive: true });
    await writeFile(
      path.join(server.dataDir, "uploads", "big.bin"),
      Buffer.alloc(32 * 1024 * 1024),
    );
    const seen = server.logs.length;
    await new Promise<void>((resolve, reject) => {
      const url = new URL(server.url);
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(`GET /uploads/big.bin HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
      });
      socket.once("data", () => {
        socket.destroy();
        resolve();
      });
      socket.once("error", reject);
    });
    // The next request's line comes after whatever the early leaver caused.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await api.get("/api/categories");
    const lines = parsed(server.logs.slice(seen));
    expect(lines.filter((line) => line.level >= 30).map((line) => line.req?.url)).toEqual([
      "/api/categories",
    ]);
  });
});
