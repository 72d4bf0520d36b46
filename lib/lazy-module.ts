import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is used, not at start-up: the image codec, the mail
 * client and the drivers a deployment may never touch (PostgreSQL, Redis) cost ~50 MB of memory
 * together, and an idle server should not pay for them.
 */
// The caller names the package's type (from `import type`); require itself cannot know it.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
