import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BUILD_INPUTS,
  BUILD_OUTPUTS,
  buildFreshness,
  clearStamp,
  fingerprint,
  writeStamp,
} from "../../scripts/build-freshness.js";

let root: string;

async function put(file: string, text = "x") {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), text);
}

/** A checkout with every input and every output, built and stamped. */
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "build-freshness-"));
  for (const input of BUILD_INPUTS) {
    await put(path.extname(input) ? input : path.join(input, "index.ts"));
  }
  for (const output of BUILD_OUTPUTS) {
    await put(path.extname(output) ? output : path.join(output, "entry.js"));
  }
  writeStamp(root, fingerprint(root));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("build freshness", () => {
  it("is stale with no stamp, or after a failed build cleared it", () => {
    clearStamp(root);
    expect(buildFreshness(root)).toEqual({ fresh: false, reason: "no record of the last build" });
  });

  it("is stale when an output is missing", async () => {
    await rm(path.join(root, "dist/server/main.js"));
    expect(buildFreshness(root)).toEqual({ fresh: false, reason: "no dist/server/main.js" });
  });

  it("is stale after an edit in any input, even one that keeps the size", async () => {
    for (const file of [
      "app/index.ts",
      "server/index.ts",
      "public/index.ts",
      "package-lock.json",
    ]) {
      writeStamp(root, fingerprint(root));
      const later = new Date(Date.now() + 5000);
      await put(file, "y");
      await utimes(path.join(root, file), later, later);
      expect(buildFreshness(root), file).toMatchObject({ fresh: false });
    }
  });

  it("is stale when a file is added or removed, or when a file gets an older time", async () => {
    await put("core/new-feature.ts");
    expect(buildFreshness(root)).toMatchObject({ fresh: false });
    writeStamp(root, fingerprint(root));
    await rm(path.join(root, "core/new-feature.ts"));
    expect(buildFreshness(root)).toMatchObject({ fresh: false });
    writeStamp(root, fingerprint(root));
    // A checkout of an older version can set an older time: still a change.
    const earlier = new Date(Date.now() - 86_400_000);
    await utimes(path.join(root, "db/index.ts"), earlier, earlier);
    expect(buildFreshness(root)).toMatchObject({ fresh: false });
  });

  it("is fresh when nothing the build reads changed", async () => {
    expect(buildFreshness(root)).toEqual({ fresh: true });
    // Files the build does not read (data, tests, the README) do not matter.
    await put("data/blog.db");
    await put("tests/new.test.ts");
    await put("README.md", "changed");
    expect(buildFreshness(root)).toEqual({ fresh: true });
  });
});
