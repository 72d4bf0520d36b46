import { Buffer } from "node:buffer";

// Imported first by main.ts, before React loads: React (and the libraries that ask) pick their
// production builds from NODE_ENV when they are first required. Without it the server renders with
// React's development checks, several times slower. A deliberate NODE_ENV still wins.
process.env.NODE_ENV ??= "production";

// Node 24 raised Buffer.poolSize from 8 KiB to 64 KiB: every Buffer under 32 KiB (a JSON answer
// kept for sharing, a compressed page, a chunk zlib writes into) is then a view into a shared
// 64 KiB block, and one small buffer kept alive keeps its whole block. Under load that held ~20 MB
// more ArrayBuffer memory than Node 20 and 22, still held after a full collection. 8 KiB is their
// default, so on 20 and 22 this changes nothing (docs/decisions/009-node-runtimes.md).
Buffer.poolSize = 8 * 1024;
