import { afterEach, beforeEach, expect } from "vitest";
import type { TestServer } from "./test-server.js";

/**
 * Fails the test during which the server logged a failed request (an error that became a 5xx), so
 * a 500 hidden behind an assertion on something else still shows, and shows in the right test.
 */
export function failOnServerErrors(serverOf: () => TestServer) {
  let seen = 0;
  beforeEach(() => {
    seen = serverOf().logs.length;
  });
  afterEach(() => {
    const failures = serverOf()
      .logs.slice(seen)
      .filter((line) => line.includes('"level":50'));
    expect(failures, "the server logged a failed request").toEqual([]);
  });
}
