// `npm run typecheck` and `npm run lint` in one process, for the checks `npm test` runs (scripts/run-checks.mjs):
// the lint's rules with type information need the same TypeScript program the type check builds and checks, so
// here both use one program per tsconfig (the project's and the status page's) instead of building and checking it
// twice. It prints tsc's diagnostics, then ESLint's report (eslint.config.js, every file `eslint .` lints), and
// exits 1 when either found a problem. No lint cache: it lints every file, as CI does.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CONFIGS = ["tsconfig.json", "scripts/status-page/tsconfig.json"];

function programOf(configPath) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, configPath), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) });
  if (parsed === undefined) process.exit(1);
  if (parsed.errors.length > 0) report(parsed.errors);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });
}

let typeErrors = 0;
function report(diagnostics) {
  if (diagnostics.length === 0) return;
  typeErrors += diagnostics.length;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  console.log(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
}

const started = Date.now();
const programs = CONFIGS.map(programOf);
for (const program of programs) report(ts.getPreEmitDiagnostics(program));
const typecheckMs = Date.now() - started;

const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ["src/**/*.ts", "test/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    languageOptions: { parserOptions: { projectService: false, programs } },
  },
});
const results = await eslint.lintFiles(["."]);
const formatter = await eslint.loadFormatter("stylish");
const text = await formatter.format(results);
if (text !== "") console.log(text);
const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);
console.log(
  `typecheck: ${typeErrors} errors in ${(typecheckMs / 1000).toFixed(1)} s; lint: ${lintErrors} errors, ${results.reduce((n, r) => n + r.warningCount, 0)} warnings in ${((Date.now() - started - typecheckMs) / 1000).toFixed(1)} s`,
);
process.exit(typeErrors > 0 || lintErrors > 0 ? 1 : 0);
