import http from "node:http";
import { expect } from "vitest";

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | undefined;
  headers?: Record<string, string>;
}

export interface ImageUpload {
  bytes: Buffer;
  filename?: string;
  contentType?: string;
  /** The form field that carries the file; `image` unless a test says otherwise. */
  field?: string;
}

/** Every body the API sends is checked for secrets that must never leave the server. */
export function assertNoSecrets(text: string) {
  expect(text, "a response carried a password hash").not.toMatch(/\$argon2/);
  expect(text, "a response carried a hash column").not.toMatch(/password_?hash|token_?hash/i);
}

/** A small client for the real server: JSON in, JSON out, bearer token when given. */
export function client(baseUrl: string) {
  async function send<T>(
    method: string,
    path: string,
    body: RequestInit["body"],
    options: RequestOptions & { json?: boolean } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.json) headers["content-type"] = "application/json";
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    assertNoSecrets(text);
    const isJson = response.headers.get("content-type")?.includes("application/json") ?? false;
    return {
      status: response.status,
      headers: response.headers,
      body: (isJson && text ? JSON.parse(text) : text) as T,
      text,
    };
  }
  const json = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));

  return {
    get: <T = Record<string, unknown>>(path: string, options?: RequestOptions) =>
      send<T>("GET", path, undefined, options),
    delete: <T = Record<string, unknown>>(path: string, options?: RequestOptions, body?: unknown) =>
      send<T>("DELETE", path, json(body), { ...options, json: body !== undefined }),
    post: <T = Record<string, unknown>>(path: string, body?: unknown, options?: RequestOptions) =>
      send<T>("POST", path, json(body), { ...options, json: body !== undefined }),
    put: <T = Record<string, unknown>>(path: string, body?: unknown, options?: RequestOptions) =>
      send<T>("PUT", path, json(body), { ...options, json: body !== undefined }),
    /** A multipart form with text fields and, optionally, one file. */
    form: <T = Record<string, unknown>>(
      method: "POST" | "PUT",
      path: string,
      parts: { fields?: Record<string, string>; file?: ImageUpload },
      options?: RequestOptions,
    ) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(parts.fields ?? {})) form.append(name, value);
      if (parts.file) {
        const {
          bytes,
          filename = "image.png",
          contentType = "image/png",
          field = "image",
        } = parts.file;
        form.append(field, new Blob([new Uint8Array(bytes)], { type: contentType }), filename);
      }
      return send<T>(method, path, form, options);
    },
    raw: (method: string, path: string, body: RequestInit["body"], options: RequestOptions = {}) =>
      send<unknown>(method, path, body, options),
  };
}

export type Client = ReturnType<typeof client>;

/** GET with node:http, so the Content-Encoding the server chose is seen as sent (fetch decodes it). */
export function rawGet(url: string, headers: Record<string, string>) {
  return rawRequest("GET", url, headers);
}

/** A request as Node's http sends it, its body's bytes as they came (compressed or not). */
export function rawRequest(method: string, url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .request(url, { method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            });
          });
          res.on("error", reject);
        })
        .on("error", reject)
        .end();
    },
  );
}
