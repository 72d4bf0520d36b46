import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inlineScriptHashes } from "../../server/web/page-cache.js";

const hash = (content: string) =>
  `'sha256-${createHash("sha256").update(content, "utf8").digest("base64")}'`;

describe("the hashes a shared page's CSP allows", () => {
  it("are those of the renderer's own inline scripts only, never one that got in otherwise", () => {
    const html = [
      '<script nonce="n0+/=">window.__context = {"a":1}</script>',
      "<h1><script>window.__xss=1</script></h1>", // user text that escaped its escaping
      '<script nonce="other">window.__xss=2</script>', // a nonce, but not this render's
      '<script type="module" nonce="n0+/=">import("/assets/entry.js")</script>',
      '<script src="/assets/app.js" nonce="n0+/="></script>',
    ].join("");
    expect(inlineScriptHashes(html, "n0+/=")).toEqual([
      hash('window.__context = {"a":1}'),
      hash('import("/assets/entry.js")'),
    ]);
  });
});
