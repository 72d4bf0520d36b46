import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepOrphanUploads, sweepUnusedBodyImages } from "../../core/media/sweep.js";
import { sanitize } from "../../core/posts/body.js";
import { buildUser, signInAdmin, type TestUser } from "../support/factories.js";
import { client, type Client, type Reply } from "../support/http.js";
import {
  EXIF_MARKER,
  fetchServed,
  filesOfImage,
  imageFolderOf,
  jpegWithExif,
  pngClaiming,
  pngImage,
  pngOfSize,
  uploadedFiles,
} from "../support/images.js";
import { addCategory, addPost, type PostDetail } from "../support/post-fixtures.js";
import { startTestS3, type TestS3 } from "../support/s3.js";
import { failOnServerErrors } from "../support/server-errors.js";
import { openTestSite } from "../support/site.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const {
  server,
  api,
  admin,
  users: { writer },
} = await openTestSite({ users: ["writer"] });

failOnServerErrors(() => server);

interface Uploaded {
  url: string;
  width: number;
  height: number;
}

const upload = async (
  user: TestUser | undefined,
  bytes: Buffer,
  file: { filename?: string; contentType?: string; field?: string } = {},
) =>
  api.form<Uploaded>(
    "POST",
    "/api/posts/images",
    { file: { bytes, filename: "picture.png", ...file } },
    { token: user?.token },
  );

const bodyImageRows = () =>
  server.app.deps.db.selectFrom("body_images").selectAll().orderBy("created_at").execute();

/** Sends an upload that must be refused; checks the answer and that nothing was stored. */
async function expectRefused(send: () => Promise<Reply>, status: number, message: string) {
  const [files, rows] = [await uploadedFiles(server), await bodyImageRows()];
  const reply = await send();
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual(
    status === 401 ? { message } : { message, errors: { image: message } },
  );
  expect(await uploadedFiles(server)).toEqual(files);
  expect(await bodyImageRows()).toEqual(rows);
}

describe("POST /api/posts/images refuses", () => {
  it("a signed-out upload with 401", async () => {
    const png = await pngImage();
    await expectRefused(() => upload(undefined, png), 401, "No token provided, please log in");
    const forged = { ...writer, token: "not-a-token" };
    const reply = await upload(forged, png);
    expect(reply.status, reply.text).toBe(401);
  });

  it("a form without the image field with 400 naming it", async () => {
    await expectRefused(
      () => api.form("POST", "/api/posts/images", { fields: { x: "y" } }, { token: writer.token }),
      400,
      "image is required",
    );
    const png = await pngImage();
    await expectRefused(() => upload(writer, png, { field: "photo" }), 400, "image is required");
    await expectRefused(
      () => api.post("/api/posts/images", { image: "x" }, { token: writer.token }),
      400,
      "image is required",
    );
  });

  it("a file that is not an image, whatever its name and type say, with 415", async () => {
    const script = Buffer.from("<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>");
    await expectRefused(
      () => upload(writer, script, { filename: "x.png", contentType: "image/png" }),
      415,
      "Unsupported File Format",
    );
    const webp = await sharp({
      create: { width: 8, height: 8, channels: 3, background: "#fff" },
    })
      .webp()
      .toBuffer();
    await expectRefused(
      () => upload(writer, webp, { filename: "x.webp", contentType: "image/webp" }),
      415,
      "Unsupported File Format",
    );
  });

  it("a file over the size limit with 413", async () => {
    const big = await pngOfSize(7_000_001);
    await expectRefused(() => upload(writer, big), 413, "File size is too large");
  });

  it("a decompression bomb with 400", async () => {
    await expectRefused(
      () => upload(writer, pngClaiming(50_000, 50_000)),
      400,
      "Image dimensions are too large",
    );
  });
});

describe("POST /api/posts/images is rate limited", () => {
  it("after 60 uploads in 15 minutes from one address, with a 429, apart from other uploads", async () => {
    const limited = await startTestServer({ RATE_LIMITS: "on" });
    try {
      const limitedApi = client(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i < 61; i += 1) {
        statuses.push((await limitedApi.form("POST", "/api/posts/images", {})).status);
      }
      expect(statuses.slice(0, 60).every((status) => status === 401)).toBe(true);
      expect(statuses[60]).toBe(429);
      // The post and photo uploads draw on an allowance of their own.
      expect((await limitedApi.form("POST", "/api/posts", {})).status).toBe(401);
    } finally {
      await limited.close();
    }
  });
});

describe("POST /api/posts/images", () => {
  it("stores the widths of a post image, without metadata, and answers 201 {url, width, height}", async () => {
    const reply = await upload(writer, await jpegWithExif(), {
      filename: "photo.jpg",
      contentType: "image/jpeg",
    });
    expect(reply.status, reply.text).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(["height", "url", "width"]);
    // Turned by its EXIF orientation: 320 wide, 640 high.
    expect(reply.body).toMatchObject({ width: 320, height: 640 });
    expect(reply.body.url).toMatch(/\/uploads\/images\/[0-9a-f-]{36}\/lg\.webp$/);
    expect((await filesOfImage(server, reply.body.url)).map((file) => file.split("/")[2])).toEqual([
      "lg.webp",
      "md.webp",
      "sm.webp",
    ]);
    const served = await fetchServed(server, reply.body.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.bytes.includes(EXIF_MARKER)).toBe(false);
    const meta = await sharp(served.bytes).metadata();
    expect([meta.width, meta.height, meta.exif]).toEqual([320, 640, undefined]);
    const [row] = (await bodyImageRows()).filter((image) =>
      reply.body.url.includes(image.image_key),
    );
    expect(row).toMatchObject({ uploader_id: writer.id, post_id: null, width: 320, height: 640 });
  });

  it("gives the size of the largest stored width for a large picture", async () => {
    const reply = await upload(admin, await pngImage(2400, 1000));
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ width: 1200, height: 500 });
  });
});

describe("POST /api/posts/images within an account's day", () => {
  const HOUR = 60 * 60 * 1000;
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();

  /** Rows as if `user` had uploaded these images (no files: only the quota reads them). */
  async function seedUploads(user: TestUser, uploads: { hoursAgo: number; bytes: number }[]) {
    const keys = uploads.map(() => `images/${randomUUID()}`);
    await server.app.deps.db
      .insertInto("body_images")
      .values(
        uploads.map((made, i) => ({
          image_key: keys[i] ?? "",
          uploader_id: user.id,
          post_id: null,
          width: 8,
          height: 8,
          bytes: made.bytes,
          created_at: hoursAgo(made.hoursAgo),
          released_at: null,
        })),
      )
      .execute();
    return keys;
  }
  const forget = (keys: string[]) =>
    server.app.deps.db.deleteFrom("body_images").where("image_key", "in", keys).execute();

  async function expectOverQuota(user: TestUser, message: string, retryAfterHours: number) {
    const [files, rows] = [await uploadedFiles(server), await bodyImageRows()];
    const reply = await upload(user, await pngImage());
    expect(reply.status, reply.text).toBe(429);
    expect(reply.body).toEqual({ message });
    const retryAfter = Number(reply.headers.get("retry-after"));
    expect(Math.abs(retryAfter - retryAfterHours * 3600)).toBeLessThan(60);
    expect(await uploadedFiles(server)).toEqual(files);
    expect(await bodyImageRows()).toEqual(rows);
  }

  it("counts what each upload stored, every width", async () => {
    const reply = await upload(writer, await pngImage(1600, 900));
    expect(reply.status, reply.text).toBe(201);
    const row = (await bodyImageRows()).find((image) => reply.body.url.includes(image.image_key));
    const root = path.join(server.dataDir, "uploads");
    const sizes = await Promise.all(
      (await filesOfImage(server, reply.body.url)).map(
        async (file) => (await stat(path.join(root, file))).size,
      ),
    );
    expect(row?.bytes).toBe(sizes.reduce((sum, size) => sum + size, 0));
  });

  it("refuses a member's 201st image in 24 hours with 429 naming the limit, until the first is a day old", async () => {
    const member = await buildUser(server, api);
    const keys = await seedUploads(member, [
      { hoursAgo: 20, bytes: 1000 },
      ...Array.from({ length: 199 }, () => ({ hoursAgo: 1, bytes: 1000 })),
    ]);
    try {
      await expectOverQuota(
        member,
        "You can upload at most 200 images a day, please try again later",
        4,
      );
      // Others upload as before.
      expect((await upload(writer, await pngImage())).status).toBe(201);
      // A day after the first, there is room for one more.
      await server.app.deps.db
        .updateTable("body_images")
        .set({ created_at: hoursAgo(25) })
        .where("image_key", "=", keys[0] ?? "")
        .execute();
      const next = await upload(member, await pngImage());
      expect(next.status, next.text).toBe(201);
      await expectOverQuota(
        member,
        "You can upload at most 200 images a day, please try again later",
        23,
      );
    } finally {
      await forget(keys);
    }
  });

  it("refuses a member past 200 MB stored in 24 hours with 429 naming the limit", async () => {
    const member = await buildUser(server, api);
    const keys = await seedUploads(member, [
      { hoursAgo: 30, bytes: 150_000_000 },
      { hoursAgo: 10, bytes: 120_000_000 },
    ]);
    try {
      expect((await upload(member, await pngImage())).status).toBe(201);
      keys.push(...(await seedUploads(member, [{ hoursAgo: 2, bytes: 80_000_000 }])));
      await expectOverQuota(
        member,
        "You can upload at most 200 MB of images a day, please try again later",
        14,
      );
    } finally {
      await forget(keys);
    }
  });

  it("does not count an admin's uploads (the site's own pictures)", async () => {
    const keys = await seedUploads(
      admin,
      Array.from({ length: 200 }, () => ({ hoursAgo: 1, bytes: 1_000_000 })),
    );
    try {
      const reply = await upload(admin, await pngImage());
      expect(reply.status, reply.text).toBe(201);
    } finally {
      await forget(keys);
    }
  });
});

describe("the sanitizer's wall around the new image attributes", () => {
  it.each([
    ['srcset="javascript:alert(1) 400w"', "a script in srcset"],
    ['srcset="https://evil.example/x.webp 400w, data:image/png;base64,AAAA 800w"', "a data: URL"],
    ['srcset="/uploads/a.webp 400w onerror=alert(1)"', "an extra word"],
    ['sizes="100vw" width="1e9" height="-1"', "sizes other than the body's, odd sizes"],
  ])("drops %s (%s)", (attributes) => {
    const html = sanitize(`<img src="/uploads/a.webp" alt="" ${attributes}>`);
    expect(html).toBe('<img src="/uploads/a.webp" alt>');
  });
});

// --- Use in posts --------------------------------------------------------------------------------

let category: string;
beforeAll(async () => {
  category = (await addCategory(api, admin, "Pictures")).title;
});

const keyOf = (url: string) => imageFolderOf(url);

const rowOf = (url: string) =>
  server.app.deps.db
    .selectFrom("body_images")
    .selectAll()
    .where("image_key", "=", keyOf(url))
    .executeTakeFirst();

async function uploaded(user: TestUser, width = 64, height = 48) {
  const reply = await upload(user, await pngImage(width, height));
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

const postHtml = async (id: string) => (await api.get<PostDetail>(`/api/posts/${id}`)).body.html;

/** The `<img>` tags of a rendered body. */
const imgTags = (html: string) => html.match(/<img [^>]*>/g) ?? [];

describe("images in a post body", () => {
  it("are claimed by the post, served with srcset, sizes, width, height and lazy loading", async () => {
    const image = await uploaded(writer, 2400, 1200);
    const post = await addPost(api, writer, {
      category,
      description: `Look:\n\n![A wide view](${image.url} "The view")`,
    });
    expect(await rowOf(image.url)).toMatchObject({ post_id: post._id, released_at: null });
    const [tag, ...more] = imgTags(await postHtml(post._id));
    expect(more).toEqual([]);
    const base = image.url.slice(0, -"lg.webp".length);
    expect(tag).toBe(
      `<img src="${image.url}" alt="A wide view" title="The view" ` +
        `srcset="${base}sm.webp 400w, ${base}md.webp 800w, ${base}lg.webp 1200w" ` +
        `sizes="(max-width: 860px) 100vw, 860px" width="1200" height="600" ` +
        `loading="lazy" decoding="async">`,
    );
    for (const variant of ["sm", "md", "lg"]) {
      expect((await fetchServed(server, `${base}${variant}.webp`)).status).toBe(200);
    }
  });

  it("list only the widths a small picture has (never enlarged)", async () => {
    const image = await uploaded(writer, 600, 300);
    const post = await addPost(api, writer, { category, description: `![small](${image.url})` });
    const base = image.url.slice(0, -"lg.webp".length);
    expect(imgTags(await postHtml(post._id))[0]).toContain(
      `srcset="${base}sm.webp 400w, ${base}md.webp 600w" sizes="(max-width: 860px) 100vw, 860px" width="600" height="300"`,
    );
  });

  it("of our storage that no upload row knows keep srcset, without a size, and claim nothing", async () => {
    const url = `${server.url}/uploads/images/${randomUUID()}/lg.webp`;
    const post = await addPost(api, writer, { category, description: `![unknown](${url})` });
    const [tag] = imgTags(await postHtml(post._id));
    expect(tag).toContain('srcset="');
    expect(tag).toContain("1200w");
    expect(tag).not.toContain("width=");
    expect(await bodyImageRows()).not.toContainEqual(
      expect.objectContaining({ post_id: post._id }),
    );
  });

  it("uploaded by another member are shown but not claimed; an admin's are claimed", async () => {
    const other = await buildUser(server, api);
    const theirs = await uploaded(other);
    const admins = await uploaded(admin);
    const post = await addPost(api, writer, {
      category,
      description: `![theirs](${theirs.url}) ![admin's](${admins.url})`,
    });
    expect(await rowOf(theirs.url)).toMatchObject({ post_id: null, uploader_id: other.id });
    expect(await rowOf(admins.url)).toMatchObject({ post_id: post._id, uploader_id: admin.id });
    expect(imgTags(await postHtml(post._id))).toHaveLength(2);
  });

  it("stay with the first post that claimed them", async () => {
    const image = await uploaded(writer);
    const first = await addPost(api, writer, { category, description: `![a](${image.url})` });
    const second = await addPost(api, writer, { category, description: `![b](${image.url})` });
    expect(await rowOf(image.url)).toMatchObject({ post_id: first._id });
    expect(imgTags(await postHtml(second._id))).toHaveLength(1);
  });

  it("are claimed by an edit that adds them and let go once nothing shows them", async () => {
    const post = await addPost(api, writer, { category, description: "No pictures yet." });
    const image = await uploaded(writer);
    const edit = (description: string) =>
      api.put<PostDetail>(
        `/api/posts/${post._id}`,
        { title: "Edited", category, description },
        { token: writer.token },
      );
    expect((await edit(`Now one: ![x](${image.url})`)).status).toBe(200);
    expect(await rowOf(image.url)).toMatchObject({ post_id: post._id, released_at: null });
    expect((await edit("None again.")).status).toBe(200);
    // Kept while a revision of the post shows it (decision 022), so a restore brings it back;
    // let go once the last such revision is gone (a post keeps its last 50).
    expect(await rowOf(image.url)).toMatchObject({ post_id: post._id, released_at: null });
    for (let i = 1; i <= 50; i += 1) {
      expect((await edit(`None, edit ${String(i)}.`)).status).toBe(200);
    }
    const released = await rowOf(image.url);
    expect(released).toMatchObject({ post_id: null });
    expect(released?.released_at).toEqual(expect.any(String));
    expect(await filesOfImage(server, image.url)).toHaveLength(3);
    // Claimed again when it comes back before the sweep.
    expect((await edit(`Back: ![x](${image.url})`)).status).toBe(200);
    expect(await rowOf(image.url)).toMatchObject({ post_id: post._id, released_at: null });
  });

  it("are deleted with their post, files and rows, and the post image too", async () => {
    const one = await uploaded(writer);
    const two = await uploaded(writer);
    const post = await addPost(api, writer, {
      category,
      description: `![1](${one.url})\n\n![2](${two.url})`,
    });
    const postImage = post.image.url;
    expect(await filesOfImage(server, one.url)).toHaveLength(3);
    const reply = await api.delete(`/api/posts/${post._id}`, { token: writer.token });
    expect(reply.status, reply.text).toBe(200);
    for (const url of [one.url, two.url, postImage]) {
      expect(await filesOfImage(server, url)).toEqual([]);
      expect((await fetchServed(server, url)).status).toBe(404);
    }
    expect(await rowOf(one.url)).toBeUndefined();
    expect(await rowOf(two.url)).toBeUndefined();
  });

  it("are deleted with their author's account: those of its posts and its unused uploads", async () => {
    const leaving = await buildUser(server, api);
    const used = await uploaded(leaving);
    const unused = await uploaded(leaving);
    const admins = await uploaded(admin);
    await addPost(api, leaving, {
      category,
      description: `![used](${used.url}) ![admin's](${admins.url})`,
    });
    const reply = await api.delete(`/api/users/profile/${leaving.id}`, { token: leaving.token });
    expect(reply.status, reply.text).toBe(200);
    for (const url of [used.url, unused.url, admins.url]) {
      expect(await filesOfImage(server, url)).toEqual([]);
      expect(await rowOf(url)).toBeUndefined();
    }
  });
});

// --- The sweep -------------------------------------------------------------------------------------

const DAY = 24 * 60 * 60 * 1000;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 60 * 60 * 1000).toISOString();

/** Dates an upload back, as if it had been made `hours` ago (and let go then, when `released`). */
const age = (url: string, hours: number, released = false) =>
  server.app.deps.db
    .updateTable("body_images")
    .set({ created_at: hoursAgo(hours), ...(released ? { released_at: hoursAgo(hours) } : {}) })
    .where("image_key", "=", keyOf(url))
    .execute();

const sweepDay = () =>
  sweepUnusedBodyImages(server.app.deps, { olderThan: new Date(Date.now() - DAY) });

describe("sweepUnusedBodyImages", () => {
  it("removes uploads no post used within 24 hours, files and rows, and keeps the rest", async () => {
    const stale = await uploaded(writer);
    const fresh = await uploaded(writer);
    const claimed = await uploaded(writer);
    const letGo = await uploaded(writer);
    const letGoLately = await uploaded(writer);
    const post = await addPost(api, writer, { category, description: `![c](${claimed.url})` });
    await age(stale.url, 25);
    await age(fresh.url, 23);
    await age(claimed.url, 48);
    await age(letGo.url, 30, true);
    // Uploaded long ago, let go by an edit an hour ago: a day from that edit.
    await age(letGoLately.url, 1, true);
    await server.app.deps.db
      .updateTable("body_images")
      .set({ created_at: hoursAgo(72) })
      .where("image_key", "=", keyOf(letGoLately.url))
      .execute();

    expect(await sweepDay()).toBe(2);
    for (const url of [stale.url, letGo.url]) {
      expect(await filesOfImage(server, url)).toEqual([]);
      expect(await rowOf(url)).toBeUndefined();
    }
    for (const url of [fresh.url, claimed.url, letGoLately.url]) {
      expect(await filesOfImage(server, url)).toHaveLength(3);
      expect(await rowOf(url)).toBeDefined();
    }
    expect(imgTags(await postHtml(post._id))).toHaveLength(1);
    expect(await sweepDay()).toBe(0);
  });

  it("takes each upload once when two instances sweep at the same time", async () => {
    const stale = await Promise.all([uploaded(writer), uploaded(writer), uploaded(writer)]);
    for (const image of stale) await age(image.url, 25);
    const counts = await Promise.all([sweepDay(), sweepDay()]);
    expect(counts[0] + counts[1]).toBe(3);
    for (const image of stale) expect(await filesOfImage(server, image.url)).toEqual([]);
  });

  it("leaves files to the orphan sweep when it stops between the rows and the files", async () => {
    const stale = await uploaded(writer);
    await age(stale.url, 25);
    const { deps } = server.app;
    // The storage fails as a process killed at that point would: the rows are gone, the files not.
    const failing = {
      ...deps,
      storage: {
        ...deps.storage,
        delete: () => Promise.reject(new Error("killed half-way")),
      },
    };
    await expect(
      sweepUnusedBodyImages(failing, { olderThan: new Date(Date.now() - DAY) }),
    ).rejects.toThrow("killed half-way");
    expect(await rowOf(stale.url)).toBeUndefined();
    expect(await filesOfImage(server, stale.url)).toHaveLength(3);
    expect(await sweepDay()).toBe(0);
    // The orphan sweep (files older than its grace, no row) finishes the job.
    expect(await sweepOrphanUploads(deps, { olderThan: new Date(Date.now() + 60_000) })).toBe(3);
    expect(await filesOfImage(server, stale.url)).toEqual([]);
  });

  it("leaves a kept upload to the orphan sweep untouched, however old its files", async () => {
    const kept = await uploaded(writer);
    expect(
      await sweepOrphanUploads(server.app.deps, { olderThan: new Date(Date.now() + DAY) }),
    ).toBe(0);
    expect(await filesOfImage(server, kept.url)).toHaveLength(3);
  });
});

describe("on S3", () => {
  let bucket: TestS3;
  let s3Server: TestServer;
  let s3Api: Client;
  beforeAll(async () => {
    bucket = await startTestS3();
    s3Server = await startTestServer(bucket.env);
    s3Api = client(s3Server.url);
  });
  afterAll(async () => {
    await s3Server.close();
    await bucket.close();
  });

  const objects = async () => {
    const keys: string[] = [];
    for await (const object of s3Server.app.deps.storage.list("images/")) keys.push(object.key);
    return keys.sort();
  };

  it("uploads into the bucket, deletes with the post and sweeps unused uploads", async () => {
    const s3Admin = await signInAdmin(s3Server, s3Api);
    const s3Category = (await addCategory(s3Api, s3Admin, "Bucket")).title;
    const send = async () => {
      const reply = await s3Api.form<Uploaded>(
        "POST",
        "/api/posts/images",
        { file: { bytes: await pngImage(900, 600) } },
        { token: s3Admin.token },
      );
      expect(reply.status, reply.text).toBe(201);
      return reply.body;
    };
    const used = await send();
    const unused = await send();
    const post = await addPost(s3Api, s3Admin, {
      category: s3Category,
      description: `![in the bucket](${used.url})`,
    });
    const html = (await s3Api.get<PostDetail>(`/api/posts/${post._id}`)).body.html;
    expect(html).toContain('width="900" height="600"');
    expect(html).toContain(`${used.url.slice(0, -"lg.webp".length)}sm.webp 400w`);
    const [usedKey, unusedKey] = [keyOf(used.url), keyOf(unused.url)];
    expect((await objects()).filter((key) => key.startsWith(`${usedKey}/`))).toHaveLength(3);

    await s3Server.app.deps.db
      .updateTable("body_images")
      .set({ created_at: hoursAgo(25) })
      .execute();
    expect(
      await sweepUnusedBodyImages(s3Server.app.deps, { olderThan: new Date(Date.now() - DAY) }),
    ).toBe(1);
    expect((await objects()).filter((key) => key.startsWith(`${unusedKey}/`))).toEqual([]);
    expect((await objects()).filter((key) => key.startsWith(`${usedKey}/`))).toHaveLength(3);

    expect((await s3Api.delete(`/api/posts/${post._id}`, { token: s3Admin.token })).status).toBe(
      200,
    );
    expect(await objects()).toEqual([]);
  });
});
