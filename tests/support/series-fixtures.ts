import { expect } from "vitest";
import type { TestUser } from "./factories.js";
import type { Client, Reply } from "./http.js";
import type { PostSummary, PublicUser } from "./post-fixtures.js";

// Series (DESIGN.md 11, "Pages and series"; decision 032): the shapes and calls the API tests of
// tests/api/series*.test.ts share.

export interface Series {
  _id: string;
  title: string;
  description: string;
  author: PublicUser;
  posts: PostSummary[];
  createdAt: string;
  updatedAt: string;
}

/** The series' calls as one member or another, through the client of a test file. */
export function seriesCalls(api: Client) {
  /** A member, or a bare API token. */
  type Caller = Pick<TestUser, "token">;
  const as = (user?: Caller) => ({ token: user?.token });
  let made = 0;
  return {
    /** Starts a series as `user` (a title of its own unless given) and returns it. */
    addSeries: async (user: Caller, fields: Record<string, unknown> = {}) => {
      made += 1;
      const reply = await api.post<Series>(
        "/api/series",
        { title: `Series ${String(made)}`, ...fields },
        as(user),
      );
      expect(reply.status, reply.text).toBe(201);
      return reply.body;
    },
    getSeries: (id: string, user?: Caller) => api.get<Series>(`/api/series/${id}`, as(user)),
    putSeries: (id: string, fields: unknown, user?: Caller) =>
      api.put<Series>(`/api/series/${id}`, fields, as(user)),
    /** Puts `posts` in the series in that order as its writer, and returns it. */
    orderSeries: async (id: string, user: Caller, posts: readonly { _id: string }[]) => {
      const reply = await api.put<Series>(
        `/api/series/${id}`,
        { posts: posts.map((post) => post._id) },
        as(user),
      );
      expect(reply.status, reply.text).toBe(200);
      return reply.body;
    },
    deleteSeries: (id: string, user?: Caller) => api.delete(`/api/series/${id}`, as(user)),
  };
}

/** Fails unless `reply` is the error envelope: `status`, `message`, and `field` naming it. */
export function expectError(reply: Reply, status: number, message: string, field?: string) {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual(field ? { message, errors: { [field]: message } } : { message });
}

/** Each post's title with its place as `n/m`, "-" outside a series: the order a reader sees. */
export const placesOf = (posts: readonly PostSummary[]) =>
  posts.map((post) =>
    post.series
      ? `${post.title} ${String(post.series.position)}/${String(post.series.total)}`
      : `${post.title} -`,
  );
