import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** Dark mode's design tokens (decision 014): every colour is a token, and both dark blocks agree. */

const root = path.resolve(import.meta.dirname, "../..");
const styles = readFileSync(path.join(root, "app/styles.css"), "utf8");

function stylesheets(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return stylesheets(file);
    return entry.name.endsWith(".css") ? [file] : [];
  });
}

/** The declarations of custom properties in a block of CSS, by name. */
function tokens(block: string): Map<string, string> {
  return new Map(
    [...block.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map(([, name = "", value = ""]) => [
      name,
      value.trim(),
    ]),
  );
}

/** The body of the first rule that starts with `opening` (no nested braces inside it). */
function blockAfter(css: string, opening: string): string {
  const start = css.indexOf(opening);
  expect(start, opening).toBeGreaterThanOrEqual(0);
  const from = css.indexOf("{", start + opening.length - 1) + 1;
  return css.slice(from, css.indexOf("}", from));
}

const light = tokens(blockAfter(styles, ":root {"));
const darkBySystem = tokens(blockAfter(styles, ':root:not([data-theme="light"]) {'));
const darkByChoice = tokens(blockAfter(styles, ':root[data-theme="dark"] {'));

describe("the colour tokens", () => {
  it("give the same dark palette whether the system or the reader chose dark", () => {
    expect(darkBySystem.size).toBeGreaterThan(20);
    expect([...darkByChoice]).toEqual([...darkBySystem]);
  });

  it("are all declared for light, which dark only overrides", () => {
    for (const name of darkBySystem.keys()) expect(light.has(name), name).toBe(true);
  });

  it("hold every colour of the site's stylesheets: the rules use tokens only", () => {
    const files = [
      path.join(root, "app/styles.css"),
      ...stylesheets(path.join(root, "app/features")),
    ];
    expect(files.length).toBeGreaterThan(3);
    const literal =
      /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\(\s*\d|(?<![\w-])(?:white|black)(?![\w-])/gi;
    for (const file of files) {
      // The token blocks themselves are where the literals belong.
      const rules = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/--[\w-]+:\s*[^;]+;/g, "");
      expect(
        [...rules.matchAll(literal)].map(([found]) => found),
        file,
      ).toEqual([]);
    }
    // And the placeholder drawing of an empty list takes its colours from them too.
    const card = readFileSync(path.join(root, "app/features/posts/post-card.tsx"), "utf8");
    expect(card).not.toMatch(/fill="#/);
  });
});
