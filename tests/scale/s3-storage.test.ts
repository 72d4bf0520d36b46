import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3Storage, type S3Storage } from "../../core/media/s3-storage.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client } from "../support/http.js";
import { pngImage } from "../support/images.js";
import { addCategory, addPost } from "../support/post-fixtures.js";
import { startTestS3, type TestS3 } from "../support/s3.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Images in an S3-compatible bucket (s3rver, a real S3-protocol server on a free port): the
// adapter on its own, then the whole server storing, serving and deleting through it.

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(() => s3.close());

function adapter(publicBaseUrl = "https://img.example") {
  return createS3Storage({
    endpoint: s3.env.S3_ENDPOINT,
    region: "us-east-1",
    bucket: "images",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    publicBaseUrl,
  });
}

async function keysUnder(storage: S3Storage, prefix: string) {
  const keys: string[] = [];
  for await (const object of storage.list(prefix)) keys.push(object.key);
  return keys.sort();
}

async function readAll(storage: S3Storage, key: string) {
  const file = await storage.open(key);
  if (!file) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of file.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return { ...file, bytes: Buffer.concat(chunks) };
}

describe("the S3 adapter", () => {
  let storage: S3Storage;
  beforeAll(() => {
    storage = adapter();
  });
  afterAll(() => {
    storage.close();
  });

  it("refuses keys it could not have made, before any request", async () => {
    for (const key of ["../etc/passwd", "/images/a", "images/../../x", "Images/A", ""]) {
      await expect(storage.put(key, Buffer.from("x"), "text/plain"), key).rejects.toThrow(
        /Unsafe storage key/,
      );
      await expect(storage.open(key), key).rejects.toThrow(/Unsafe storage key/);
    }
    expect(await keysUnder(storage, "")).toEqual([]);
  });

  it("answers undefined for a key that is not there", async () => {
    expect(await storage.open("images/none/lg.webp")).toBeUndefined();
  });

  it("stores, reads back with its type, lists, and deletes", async () => {
    const bytes = await pngImage();
    await storage.put("images/a1/lg.webp", bytes, "image/webp");
    await storage.put("images/a1/sm.webp", Buffer.from("small"), "image/webp");
    await storage.put("avatars/b2/lg.webp", Buffer.from("other"), "image/webp");

    const read = await readAll(storage, "images/a1/lg.webp");
    expect(read?.bytes.equals(bytes)).toBe(true);
    expect(read?.contentType).toBe("image/webp");
    expect(read?.contentLength).toBe(bytes.length);
    expect(storage.url("images/a1/lg.webp")).toBe("https://img.example/images/a1/lg.webp");

    expect(await keysUnder(storage, "images/")).toEqual(["images/a1/lg.webp", "images/a1/sm.webp"]);
    const listed = [];
    for await (const object of storage.list("images/a1/")) listed.push(object);
    for (const object of listed) {
      expect(Date.now() - object.modifiedAt.getTime()).toBeLessThan(60_000);
    }

    // Deleting a key that is already gone is not an error (a retried delete).
    await storage.delete(["images/a1/lg.webp", "images/a1/sm.webp", "images/zz/lg.webp"]);
    expect(await keysUnder(storage, "images/")).toEqual([]);
    expect(await keysUnder(storage, "avatars/")).toEqual(["avatars/b2/lg.webp"]);
    await storage.delete(["avatars/b2/lg.webp"]);
  });

  it("lists and deletes past the 1,000 keys S3 answers per call", async () => {
    const keys = Array.from(
      { length: 1005 },
      (_, i) => `images/many/${String(i).padStart(4, "0")}.webp`,
    );
    for (let start = 0; start < keys.length; start += 25) {
      await Promise.all(
        keys
          .slice(start, start + 50)
          .map((key) => storage.put(key, Buffer.from(key), "image/webp")),
      );
    }
    expect(await keysUnder(storage, "images/many/")).toEqual(keys);
    await storage.delete(keys);
    expect(await keysUnder(storage, "images/many/")).toEqual([]);
  }, 60_000);
});

describe("a server storing images in S3", () => {
  let server: TestServer;
  let api: Client;
  let admin: TestUser;
  let storage: S3Storage;

  beforeAll(async () => {
    server = await startTestServer(s3.env);
    api = client(server.url);
    admin = await signInAdmin(server, api);
    await addCategory(api, admin, "Travel");
    storage = adapter();
  });
  afterAll(async () => {
    storage.close();
    await server.close();
  });

  const keyOf = (url: string) => new URL(url).pathname.replace(/^\/uploads\//, "");

  it("stores a post's image in the bucket, not on disk, and serves it through /uploads", async () => {
    const post = await addPost(api, admin, { category: "Travel" });
    const url = post.image.url;
    expect(url.startsWith(`${server.config.publicUrl}/uploads/images/`)).toBe(true);

    const folder = keyOf(url).replace(/\/[^/]+$/, "/");
    const stored = await keysUnder(storage, folder);
    expect(stored.length).toBeGreaterThan(1);
    expect(stored).toContain(keyOf(url));
    const onDisk = await readdir(path.join(server.dataDir, "uploads"), { recursive: true }).catch(
      () => [],
    );
    expect(onDisk).toEqual([]);

    const served = await fetch(`${server.url}${new URL(url).pathname}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.subarray(8, 12).toString()).toBe("WEBP");
    expect((await readAll(storage, keyOf(url)))?.bytes.equals(bytes)).toBe(true);

    // A validator lets browsers and CDNs revalidate without the bytes.
    const etag = served.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await fetch(`${server.url}${new URL(url).pathname}`, {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(again.status).toBe(304);

    const deleted = await api.delete(`/api/posts/${post._id}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect(await keysUnder(storage, folder)).toEqual([]);
    expect((await fetch(`${server.url}${new URL(url).pathname}`)).status).toBe(404);
  });

  it("answers 404 for missing and malformed upload paths without asking for other keys", async () => {
    for (const pathname of [
      "/uploads/images/none/lg.webp",
      "/uploads/..%2f..%2fetc/passwd",
      "/uploads/images/%2e%2e/%2e%2e/x",
      "/uploads/",
    ]) {
      const answer = await fetch(`${server.url}${pathname}`);
      expect(answer.status, pathname).toBe(404);
    }
  });

  it("replaces a profile photo in the bucket and removes the old one's files", async () => {
    const member = await buildUser(server, api);
    const upload = () =>
      pngImage(40, 40).then((bytes) =>
        api.form<{ profilePhoto: { url: string } }>(
          "POST",
          "/api/users/profile/profile-photo",
          { file: { bytes, filename: "me.png" } },
          { token: member.token },
        ),
      );
    const first = await upload();
    expect(first.status, first.text).toBe(200);
    const firstFolder = keyOf(first.body.profilePhoto.url).replace(/\/[^/]+$/, "/");
    expect((await keysUnder(storage, firstFolder)).length).toBeGreaterThan(0);

    const second = await upload();
    expect(second.status).toBe(200);
    expect(await keysUnder(storage, firstFolder)).toEqual([]);
    const served = await fetch(`${server.url}${new URL(second.body.profilePhoto.url).pathname}`);
    expect(served.status).toBe(200);
  });
});

describe("a server whose images have their own public address (a CDN or the bucket itself)", () => {
  let server: TestServer;
  let api: Client;

  beforeAll(async () => {
    server = await startTestServer({ ...s3.env, S3_PUBLIC_URL: "https://cdn.example.com/blog/" });
    api = client(server.url);
  });
  afterAll(() => server.close());

  it("links images there and lets pages load images from that origin only", async () => {
    const admin = await signInAdmin(server, api);
    await addCategory(api, admin, "Food");
    const post = await addPost(api, admin, { category: "Food" });
    expect(post.image.url).toMatch(
      /^https:\/\/cdn\.example\.com\/blog\/images\/[^/]+\/[a-z]+\.webp$/,
    );

    const page = await fetch(`${server.url}/posts/details/${post._id}`);
    const policy = page.headers.get("content-security-policy") ?? "";
    const images = /img-src ([^;]+)/.exec(policy)?.[1]?.split(" ");
    expect(images).toContain("https://cdn.example.com");
    expect(images?.filter((source) => source.startsWith("http"))).toEqual([
      "https://cdn.example.com",
    ]);
  });
});

describe("a server whose bucket stops answering", () => {
  let bucket: TestS3;
  let server: TestServer;
  let api: Client;
  let admin: TestUser;

  beforeAll(async () => {
    bucket = await startTestS3();
    server = await startTestServer(bucket.env);
    api = client(server.url);
    admin = await signInAdmin(server, api);
    await addCategory(api, admin, "Travel");
  });
  afterAll(() => server.close());

  it("still deletes posts and users, drops them from kept answers at once, and logs the files left", async () => {
    const member = await buildUser(server, api);
    const post = await addPost(api, admin, { category: "Travel", title: "Gone soon" });
    const own = await addPost(api, member, { category: "Travel", title: "Member's post" });
    // Kept now: the next answers would come from memory if nothing moved the content version on.
    const titles = async () =>
      (await api.get<{ title: string }[]>("/api/posts?pageNumber=1")).body.map((p) => p.title);
    expect(await titles()).toEqual(expect.arrayContaining(["Gone soon", "Member's post"]));
    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(200);

    await bucket.close();

    // The rows go whatever the bucket says; its files are the sweep's to remove later.
    const deleted = await api.delete(`/api/posts/${post._id}`, { token: admin.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await api.get(`/api/posts/${post._id}`)).status).toBe(404);
    const gone = await api.delete(`/api/users/profile/${member.id}`, { token: member.token });
    expect(gone.status, gone.text).toBe(200);
    expect((await api.get(`/api/posts/${own._id}`)).status).toBe(404);
    expect(await titles()).not.toEqual(expect.arrayContaining(["Gone soon"]));
    expect(await titles()).not.toEqual(expect.arrayContaining(["Member's post"]));

    const left = server.logs.filter((line) => line.includes("image files left for the sweep"));
    expect(left).toHaveLength(2);
    expect(left.join("\n")).toContain(post.image.url.split("/uploads/")[1]?.split("/")[1]);
  });
});
