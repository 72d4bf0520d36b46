import sharp from "sharp";
import { expect } from "vitest";
import type { Client } from "./http.js";
import type { TestUser } from "./factories.js";

export const tinyPng = (color = "#3366ff") =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: color } })
    .png()
    .toBuffer();

/** Makes sure a category exists (as the admin) and returns its title. */
export async function ensureCategory(api: Client, admin: TestUser, title = "General") {
  const reply = await api.post("/api/categories", { title }, { token: admin.token });
  expect([201, 409]).toContain(reply.status);
  return title;
}

export interface CreatedPost {
  _id: string;
  title: string;
  category: string;
  image: { url: string };
  user: { _id: string };
}

/** A post by `author` through the API, as the create-post form sends it. */
export async function buildPost(
  api: Client,
  author: TestUser,
  fields: { title?: string; category?: string; description?: string } = {},
): Promise<CreatedPost> {
  const reply = await api.form<CreatedPost>(
    "POST",
    "/api/posts",
    {
      fields: {
        title: fields.title ?? "A post",
        category: fields.category ?? "General",
        description: fields.description ?? "Some words about something.",
      },
      file: { bytes: await tinyPng() },
    },
    { token: author.token },
  );
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}
