import path from "node:path";
import { describe, expect, it } from "vitest";
import { startBanner } from "../../server/banner.js";
import { loadConfig } from "../../server/config.js";
import { formatLogLine } from "../../server/pretty-log.js";

const cwd = "/srv/blog";

describe("the start banner", () => {
  it("says the address, where data, images and mail go, and the new admin once", () => {
    const config = loadConfig({ DATA_DIR: path.join(cwd, "data"), PORT: "3000" });
    const text = startBanner(config, {
      cwd,
      admin: { email: "admin@example.com", password: "Generated-1!" },
    });
    expect(text).toContain("Blog is running at http://localhost:3000");
    expect(text).toContain("Data:    SQLite in ./data/blog.db");
    expect(text).toContain("Images:  ./data/uploads");
    expect(text).toContain("Mail:    written to ./data/mail (no SMTP_URL");
    expect(text).toContain("e-mail:   admin@example.com");
    expect(text).toContain("password: Generated-1!");
    // Short: a screenful is what this replaces.
    expect(text.trim().split("\n").length).toBeLessThanOrEqual(16);
  });

  it("names no admin on a later start and never prints a configured secret", () => {
    const config = loadConfig({
      DATA_DIR: "/var/lib/blog",
      PUBLIC_URL: "https://blog.example.com",
      DATABASE_URL: "postgres://blog:db-secret@db.internal:5432/blog",
      SMTP_URL: "smtp://mailer:smtp-secret@smtp.example.com:587",
      REDIS_URL: "redis://:redis-secret@cache.internal:6379",
      S3_BUCKET: "blog-images",
      S3_ACCESS_KEY_ID: "key-id",
      S3_SECRET_ACCESS_KEY: "s3-secret",
      ADMIN_EMAIL: "me@example.com",
      ADMIN_PASSWORD: "Config-Pass1!",
      SITE_TITLE: "My Notes",
    });
    const text = startBanner(config, { cwd });
    expect(text).toContain("My Notes is running at https://blog.example.com");
    expect(text).toContain("PostgreSQL at postgres://db.internal:5432/blog");
    expect(text).toContain("sent through smtp://smtp.example.com:587");
    expect(text).toContain("S3 bucket blog-images");
    expect(text).not.toContain("admin account");
    for (const secret of [
      "db-secret",
      "smtp-secret",
      "redis-secret",
      "s3-secret",
      "Config-Pass1!",
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe("log lines in a terminal", () => {
  const time = new Date(2026, 10, 24, 12, 0, 1).getTime();

  it("show a request as method, path, status and time on one line", () => {
    const line = JSON.stringify({
      level: 30,
      time,
      pid: 1,
      hostname: "h",
      reqId: "req-1",
      req: { method: "GET", url: "/posts?page=2", remoteAddress: "127.0.0.1" },
      res: { statusCode: 200 },
      responseTime: 4.3,
      msg: "request completed",
    });
    expect(formatLogLine(line)).toBe("12:00:01 GET /posts?page=2 200 4 ms");
  });

  it("show other lines with their level, fields and an error's stack", () => {
    const warn = JSON.stringify({ level: 40, time, msg: "redis unavailable", attempt: 2 });
    expect(formatLogLine(warn)).toBe('12:00:01 WARN redis unavailable {"attempt":2}');
    const error = JSON.stringify({
      level: 50,
      time,
      msg: "request failed",
      err: { type: "Error", message: "boom", stack: "Error: boom\n    at here" },
    });
    expect(formatLogLine(error)).toBe("12:00:01 ERROR request failed\nError: boom\n    at here");
    expect(formatLogLine("not json")).toBe("not json");
  });
});
