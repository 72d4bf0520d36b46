import path from "node:path";
import type { AdminCredentials } from "../core/users/bootstrap-admin.js";
import type { Config } from "./config.js";

/** A URL for people to read: no user name or password. */
function withoutCredentials(address: string) {
  const url = new URL(address);
  url.username = "";
  url.password = "";
  return url.toString().replace(/\/$/, "");
}

/** `data` rather than `/home/me/blog/data` when the data lives under the working directory. */
function shortPath(target: string, cwd: string) {
  const relative = path.relative(cwd, target);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative)
    ? `./${relative}`
    : target;
}

/**
 * What `npm start` says once the server listens: where to open it, where its data and mail go and,
 * on a first start, the admin account it made (its generated password, this once). Never a secret
 * from the configuration (database and SMTP passwords are left out).
 */
export function startBanner(
  config: Config,
  options: { admin?: AdminCredentials | undefined; cwd?: string } = {},
): string {
  const cwd = options.cwd ?? process.cwd();
  const dataDir = shortPath(config.dataDir, cwd);
  const database = config.databaseUrl
    ? `PostgreSQL at ${withoutCredentials(config.databaseUrl)}`
    : `SQLite in ${dataDir}${path.sep}blog.db`;
  const images = config.s3
    ? `S3 bucket ${config.s3.bucket}${config.s3.endpoint ? ` at ${config.s3.endpoint}` : ""}`
    : `${dataDir}${path.sep}uploads`;
  const { dkim } = config.mail;
  const mail =
    (config.mail.smtpUrl
      ? `sent through ${withoutCredentials(config.mail.smtpUrl)}`
      : `written to ${dataDir}${path.sep}mail (no SMTP_URL; links are also logged)`) +
    (dkim ? `, DKIM-signed (${dkim.keySelector}._domainkey.${dkim.domainName})` : "");
  const lines = [
    "",
    `  ${config.site.title} is running at ${config.publicUrl}`,
    "",
    `  Data:    ${database}`,
    `  Images:  ${images}`,
    `  Mail:    ${mail}`,
  ];
  if (config.redisUrl) lines.push(`  Shared:  Redis at ${withoutCredentials(config.redisUrl)}`);
  if (options.admin) {
    lines.push(
      "",
      "  Created the first admin account (shown this once):",
      `    e-mail:   ${options.admin.email}`,
      `    password: ${options.admin.password}`,
      "  Sign in and change the password from the profile page.",
    );
  }
  lines.push("", "  Stop it with Ctrl+C.", "", "");
  return lines.join("\n");
}
