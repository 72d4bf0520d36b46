import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist",
      "build",
      ".react-router",
      "node_modules",
      "data",
      "coverage",
      "bench/results",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-non-null-assertion": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": ["error", { allow: ["error"] }],
      // Loaders throw React Router's data() responses (404 and friends) by design.
      "@typescript-eslint/only-throw-error": [
        "error",
        {
          allow: [
            { from: "package", package: "react-router", name: "DataWithResponseInit" },
            { from: "lib", name: "Response" },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // Split before adding: a function past ~120 lines or a file past ~400 is a warning to act on.
    files: [
      "app/**",
      "server/**",
      "core/**",
      "db/**",
      "contract/**",
      "lib/**",
      "bench/**",
      "scripts/**",
    ],
    rules: {
      "max-lines-per-function": ["warn", { max: 120, skipBlankLines: true, skipComments: true }],
      "max-lines": ["warn", { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Page addresses come from contract/page-paths.ts: a route that moves changes in one place.
    files: ["app/**", "server/**", "core/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "TemplateElement[value.raw=/^\\/(profile|posts\\/details|posts\\/categories|tags|stats\\/posts)\\/$/]",
          message: "Build page addresses with contract/page-paths.ts.",
        },
      ],
    },
  },
  {
    // The host loads the web site's build, never its sources: what both need is in contract/.
    files: ["server/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["**/app/**"] }],
    },
  },
  {
    // Import direction of DESIGN.md section 3: core and db know nothing of HTTP or the web site.
    files: ["core/**", "contract/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: ["**/server/**", "**/app/**", "fastify", "@fastify/*"] },
      ],
    },
  },
  {
    // The database layer is below the services (decision 027): a migration keeps what it ran
    // with, so it never follows today's code. lib/ holds what any layer may use.
    files: ["db/**", "lib/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: ["**/core/**", "**/server/**", "**/app/**", "fastify", "@fastify/*"] },
      ],
    },
  },
);
