// typescript-eslint's recommended rules over all of kintsugi's code (`npm run lint`; `npm test` runs it first), and
// over the TypeScript the rules that need type information: a promise nobody awaits or catches, a promise where a
// callback's result is ignored, a switch that misses a case of a union. `tsc` is the type check. No formatting
// rules: Prettier formats. `--cache` keeps the second run quick; it keys on each file's own content, so a file whose
// imports changed types is linted again only when it changes too, or without the cache (CI starts without one).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["dist/", ".test-build/", "src/graphql/generated/", "src/cli/generated/", ".tmp/", "data/", "test-artifacts/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // A leading _ names what is left out on purpose: a parameter a fixed signature has, a destructured rest sibling.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // kintsugi's validators and hostile-input tests match control characters on purpose (\x00-\x1f in untrusted text).
      "no-control-regex": "off",
    },
  },
  {
    files: ["src/**/*.ts", "test/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's describe and it return promises the runner itself awaits; nothing else may float.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["describe", "it", "test", "suite", "before", "after", "beforeEach", "afterEach"] },
          ],
        },
      ],
      "@typescript-eslint/no-misused-promises": "error",
      // A switch over a union names every member (or says why not with a default): a new kind is then a compile-time list.
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false }],
    },
  },
  // In src/ an await or a Promise.all of what is no promise is a mistake; tests await values a closure set (which the
  // type checker cannot follow), so there it is not checked.
  { files: ["src/**/*.ts"], rules: { "@typescript-eslint/await-thenable": "error" } },
  {
    // Tests and benchmarks read GraphQL answers as loose JSON; src/ has no `any`.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  // The few plain JavaScript files: TypeScript does not check them, so no-undef needs their environment's globals.
  { files: ["bin/**/*.js", "scripts/**/*.mjs"], languageOptions: { globals: { process: "readonly", console: "readonly" } } },
  { files: ["scripts/graphiql-page/**/*.js"], languageOptions: { globals: { localStorage: "readonly", Headers: "readonly", fetch: "readonly" } } },
);
