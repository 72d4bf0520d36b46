import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const TEXT_ASSET = /\.(?:js|mjs|css|svg|json|txt)$/;

/**
 * Writes `.br` (quality 11) and `.gz` (level 9) beside every text asset of the browser build, once,
 * so the server sends the smallest form without compressing on each request (@fastify/static's
 * preCompressed).
 */
function precompress(): Plugin {
  return {
    name: "precompress-assets",
    apply: "build",
    async writeBundle(options, bundle) {
      if (this.environment.name !== "client" || !options.dir) return;
      const dir = options.dir;
      await Promise.all(
        Object.keys(bundle)
          .filter((name) => TEXT_ASSET.test(name))
          .map(async (name) => {
            const file = path.join(dir, name);
            const bytes = await readFile(file);
            const params = {
              [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            };
            await writeFile(`${file}.br`, await brotli(bytes, { params }));
            await writeFile(`${file}.gz`, await gzip(bytes, { level: 9 }));
          }),
      );
    },
  };
}

export default defineConfig({
  plugins: [reactRouter(), precompress()],
  build: { assetsInlineLimit: 0 },
});
