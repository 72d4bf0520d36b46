import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { EMAIL_PATTERN, STRONG_PASSWORD_PATTERN } from "../contract/auth.js";

// An empty variable counts as unset, so `FOO=` in a unit file falls back to the default.
const blankAsUnset = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const optional = z.preprocess(blankAsUnset, z.string().trim().optional());
const text = (fallback: string) => z.preprocess(blankAsUnset, z.string().trim().default(fallback));

function url(protocols: readonly string[], example: string) {
  return optional.refine(
    (value) => {
      if (value === undefined) return true;
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL like ${example}` },
  );
}

/**
 * A browser origin as the browser sends it (`https://app.example.com`, `http://localhost:5173`):
 * scheme, host and port, nothing else. Undefined when the text is not one.
 */
function originOf(text: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return undefined;
  }
  const bare =
    (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    parsed.username === "" &&
    parsed.password === "" &&
    // No path, query or fragment: at most one slash after the host and port.
    /^[a-z]+:\/\/[^/?#]+\/?$/i.test(text);
  return bare ? parsed.origin : undefined;
}

/**
 * CORS_ORIGINS: each origin written out. `*` is refused: it would let every page on the web call
 * the API with its visitors' browsers (sign-in guessing from a crowd, look-alike front ends).
 */
const corsOrigins = optional.transform((value, context) => {
  if (value === undefined) return [];
  const origins: string[] = [];
  for (const entry of value.split(",").map((part) => part.trim())) {
    const origin = originOf(entry);
    if (origin === undefined) {
      context.addIssue({
        code: "custom",
        message:
          entry === "*"
            ? "must list each origin; * is not accepted"
            : `must be a comma-separated list of origins like https://app.example.com (scheme, host and optional port, no path): not "${entry}"`,
      });
      return z.NEVER;
    }
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
});

const DOMAIN_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])$/i;
const DKIM_SELECTOR =
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * DKIM_PRIVATE_KEY: the PEM text itself (real line breaks or `\n`, as .env files write them) or
 * the path of a file holding it. Returns the PEM, or a problem to report.
 */
function dkimPrivateKey(value: string): { pem: string } | { problem: string } {
  let pem = value.includes("-----BEGIN") ? value.replace(/\\n/g, "\n") : undefined;
  if (pem === undefined) {
    try {
      pem = readFileSync(path.resolve(value), "utf8");
    } catch {
      return {
        problem: `DKIM_PRIVATE_KEY: must be a PEM private key or the path of a file holding one; cannot read ${value}`,
      };
    }
  }
  try {
    // Signed rsa-sha256, the one algorithm every receiver checks.
    if (createPrivateKey(pem).asymmetricKeyType !== "rsa") {
      return { problem: "DKIM_PRIVATE_KEY: must be an RSA private key" };
    }
  } catch {
    return {
      problem:
        "DKIM_PRIVATE_KEY: is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)",
    };
  }
  return { pem };
}

const EnvSchema = z.object({
  PORT: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^\d{1,5}$/, "must be a whole number between 0 and 65535")
      .transform(Number)
      .refine((port) => port <= 65535, "must be a whole number between 0 and 65535")
      .default(3000),
  ),
  HOST: text("0.0.0.0"),
  DATA_DIR: text("./data"),
  DATABASE_URL: url(["postgres:", "postgresql:"], "postgres://user:password@host:5432/blog"),
  PUBLIC_URL: url(["http:", "https:"], "https://blog.example.com"),
  MAIL_LINK_URL: url(["http:", "https:"], "https://app.example.com"),
  CORS_ORIGINS: corsOrigins,
  ADMIN_EMAIL: optional.refine((v) => v === undefined || EMAIL_PATTERN.test(v), {
    message: "must be an e-mail address",
  }),
  ADMIN_PASSWORD: optional.refine((v) => v === undefined || STRONG_PASSWORD_PATTERN.test(v), {
    message:
      "must have 8 characters, one uppercase, one lowercase, one number and one special character (!+@#$%^&*)",
  }),
  SMTP_URL: url(["smtp:", "smtps:"], "smtp://user:password@smtp.example.com:587"),
  MAIL_FROM: optional,
  // Every mail signed with DKIM (decision 028): the three go together.
  DKIM_DOMAIN: optional.refine((v) => v === undefined || DOMAIN_NAME.test(v), {
    message: "must be a domain name like example.com",
  }),
  DKIM_SELECTOR: optional.refine((v) => v === undefined || DKIM_SELECTOR.test(v), {
    message: "must be a selector like mail2026 (letters, digits, hyphens and dots)",
  }),
  DKIM_PRIVATE_KEY: optional,
  RATE_LIMITS: z.preprocess(
    blankAsUnset,
    z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  ),
  // Lower hourly allowances for accounts in their first day (decision 013); test suites that sign
  // up many accounts and write a lot with each turn them off.
  NEW_ACCOUNT_LIMITS: z.preprocess(
    blankAsUnset,
    z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  ),
  PAGE_CACHE: z.preprocess(
    blankAsUnset,
    z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  ),
  // Views of post pages are counted for the writers' stats (decision 026); off counts nothing.
  VIEW_COUNTING: z.preprocess(
    blankAsUnset,
    z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  ),
  // Webhooks may reach loopback, private and link-local addresses (decision 025): for a receiver
  // on the same machine or network, never on a site whose admins are not its operators.
  WEBHOOK_ALLOW_PRIVATE: z.preprocess(
    blankAsUnset,
    z.enum(["on", "off"], { error: "must be on or off" }).default("off"),
  ),
  // Newsletter mails a minute from each instance (decision 028): a relay's or provider's limit.
  NEWSLETTER_RATE: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^\d{1,6}$/, "must be a whole number of mails a minute, from 1 to 100000")
      .transform(Number)
      .refine(
        (rate) => rate >= 1 && rate <= 100_000,
        "must be a whole number of mails a minute, from 1 to 100000",
      )
      .default(600),
  ),
  REDIS_URL: url(["redis:", "rediss:"], "redis://127.0.0.1:6379"),
  REDIS_PREFIX: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/, "must be letters, digits and : _ . - (at most 64)")
      .default("blog:"),
  ),
  TRUST_PROXY: z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      // `true` would take the first address of X-Forwarded-For, which the client writes itself.
      .refine((value) => value !== "true" && !/\/0\s*(,|$)/.test(value), {
        message:
          "true (or a /0 range) would believe any address a client writes in X-Forwarded-For, so rate limits and sign-in locks would not hold; set the number of proxies in front of this server (1 for one reverse proxy) or their addresses",
      })
      .regex(
        /^(true|false|\d{1,2}|[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*)$/,
        "must be false, the number of proxies in front, or a comma-separated list of proxy addresses",
      )
      .default("false"),
  ),
  S3_ENDPOINT: url(["http:", "https:"], "https://s3.example.com"),
  S3_BUCKET: optional.refine(
    (v) => v === undefined || /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v),
    {
      message: "must be a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)",
    },
  ),
  S3_REGION: text("us-east-1"),
  S3_ACCESS_KEY_ID: optional,
  S3_SECRET_ACCESS_KEY: optional,
  S3_PUBLIC_URL: url(["http:", "https:"], "https://images.example.com"),
  SITE_TITLE: text("Blog"),
  SITE_CONTACT_PHONE: text("+1 555 0100"),
  SITE_CONTACT_EMAIL: text("hello@example.com"),
  SITE_WELCOME: text(
    "Welcome to my blog. Here I write about what I build, what I read and what I learn along the way.",
  ),
  LOG_LEVEL: z.preprocess(
    blankAsUnset,
    z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
        error: "must be one of fatal, error, warn, info, debug, trace, silent",
      })
      .default("info"),
  ),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  /** The base of links in mail: a front end on another origin serves their paths. */
  mailLinkUrl: string;
  /** Origins whose pages may call /api with a bearer token (never with cookies). */
  corsOrigins: string[];
  admin: { email: string | undefined; password: string | undefined };
  mail: { smtpUrl: string | undefined; from: string; dkim: DkimConfig | undefined };
  rateLimits: boolean;
  /** Whether accounts in their first day get lower hourly limits on posts and comments. */
  newAccountLimits: boolean;
  /** Whether renders of anonymous pages and public reads are shared until content changes. */
  pageCache: boolean;
  viewCounting: boolean;
  /** Whether webhooks may reach loopback, private and link-local addresses. */
  webhookAllowPrivate: boolean;
  /** Newsletter mails a minute from this instance. */
  newsletterRate: number;
  redisUrl: string | undefined;
  /** Start of every key this site writes to Redis, so several sites can share one server. */
  redisPrefix: string;
  /** Fastify's trustProxy: whose X-Forwarded-For to believe for the client's address. */
  trustProxy: false | number | string[];
  /** S3-compatible image storage; unset: files under DATA_DIR/uploads. */
  s3: S3Config | undefined;
  site: { title: string; contactPhone: string; contactEmail: string; welcome: string };
  logLevel: string;
}

/** What signs every mail with DKIM, named as nodemailer's `dkim` option names it. */
export interface DkimConfig {
  domainName: string;
  keySelector: string;
  /** PEM text. */
  privateKey: string;
}

export interface S3Config {
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where browsers fetch images from; unset: this site's /uploads/, which reads from the bucket. */
  publicUrl: string | undefined;
}

function parseTrustProxy(value: string): false | number | string[] {
  if (value === "false") return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(",").map((address) => address.trim());
}

/** Origins other than this site's that pages load images from (a CDN or bucket in front of S3). */
export const imageOrigins = (config: Pick<Config, "s3">): string[] =>
  config.s3?.publicUrl ? [new URL(config.s3.publicUrl).origin] : [];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY: all three, or none. */
function dkimOf(e: z.infer<typeof EnvSchema>, problems: string[]): DkimConfig | undefined {
  const given = {
    DKIM_DOMAIN: e.DKIM_DOMAIN,
    DKIM_SELECTOR: e.DKIM_SELECTOR,
    DKIM_PRIVATE_KEY: e.DKIM_PRIVATE_KEY,
  };
  const missing = Object.entries(given).filter(([, value]) => value === undefined);
  if (missing.length === 3) return undefined;
  for (const [name] of missing) {
    problems.push(
      `${name}: must be set to sign mail with DKIM (DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY go together)`,
    );
  }
  if (!e.DKIM_DOMAIN || !e.DKIM_SELECTOR || !e.DKIM_PRIVATE_KEY) return undefined;
  const key = dkimPrivateKey(e.DKIM_PRIVATE_KEY);
  if ("problem" in key) {
    problems.push(key.problem);
    return undefined;
  }
  return {
    domainName: e.DKIM_DOMAIN.toLowerCase(),
    keySelector: e.DKIM_SELECTOR,
    privateKey: key.pem,
  };
}

/** Reads the environment once; a wrong value stops start-up with the variable's name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.ADMIN_PASSWORD && !e.ADMIN_EMAIL) {
    problems.push("ADMIN_EMAIL: must be set when ADMIN_PASSWORD is set");
  }
  const s3Given = [e.S3_ENDPOINT, e.S3_BUCKET, e.S3_ACCESS_KEY_ID, e.S3_SECRET_ACCESS_KEY];
  if (s3Given.some((value) => value !== undefined) || e.S3_PUBLIC_URL !== undefined) {
    for (const [name, value] of [
      ["S3_BUCKET", e.S3_BUCKET],
      ["S3_ACCESS_KEY_ID", e.S3_ACCESS_KEY_ID],
      ["S3_SECRET_ACCESS_KEY", e.S3_SECRET_ACCESS_KEY],
    ] as const) {
      if (value === undefined) problems.push(`${name}: must be set to use S3 storage`);
    }
  }
  const dkim = dkimOf(e, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${String(e.PORT)}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    publicUrl,
    mailLinkUrl: e.MAIL_LINK_URL?.replace(/\/+$/, "") ?? publicUrl,
    corsOrigins: e.CORS_ORIGINS,
    admin: { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD },
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM ?? `"${e.SITE_TITLE}" <no-reply@${new URL(publicUrl).hostname}>`,
      dkim,
    },
    rateLimits: e.RATE_LIMITS === "on",
    newAccountLimits: e.NEW_ACCOUNT_LIMITS === "on",
    pageCache: e.PAGE_CACHE === "on",
    viewCounting: e.VIEW_COUNTING === "on",
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === "on",
    newsletterRate: e.NEWSLETTER_RATE,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    s3:
      e.S3_BUCKET && e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? {
            endpoint: e.S3_ENDPOINT?.replace(/\/+$/, ""),
            region: e.S3_REGION,
            bucket: e.S3_BUCKET,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            publicUrl: e.S3_PUBLIC_URL?.replace(/\/+$/, ""),
          }
        : undefined,
    site: {
      title: e.SITE_TITLE,
      contactPhone: e.SITE_CONTACT_PHONE,
      contactEmail: e.SITE_CONTACT_EMAIL,
      welcome: e.SITE_WELCOME,
    },
    logLevel: e.LOG_LEVEL,
  };
}
