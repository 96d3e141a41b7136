// typescript-eslint's recommended rules over all of kintsugi's code (`npm run lint`; `npm test` runs it first).
// Without type information, so it stays quick; `tsc` is the type check. No formatting rules: Prettier formats.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["dist/", "src/graphql/generated/", "src/cli/generated/", ".tmp/", "data/", "test-artifacts/"] },
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
    // Tests and benchmarks read GraphQL answers as loose JSON; src/ has no `any`.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  // The few plain JavaScript files: TypeScript does not check them, so no-undef needs their environment's globals.
  { files: ["bin/**/*.js", "scripts/**/*.mjs"], languageOptions: { globals: { process: "readonly", console: "readonly" } } },
  { files: ["scripts/graphiql-page/**/*.js"], languageOptions: { globals: { localStorage: "readonly", Headers: "readonly", fetch: "readonly" } } },
);
