import { execFileSync } from "node:child_process";

/** The browser tests drive the production build of the site, as `npm start` serves it. */
export default function buildSite() {
  execFileSync("npx", ["react-router", "build"], { stdio: "inherit" });
}
