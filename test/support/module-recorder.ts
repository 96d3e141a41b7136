import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Written into a test's directory and given to a kintsugi process with NODE_OPTIONS=--import: every module the
// process loads, ESM (through a load hook) and CommonJS (through Module._load), one path a line in the file LOADED names.
const RECORDER = `
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
register("data:text/javascript," + encodeURIComponent(
  "import { appendFileSync } from 'node:fs';" +
  "export async function load(url, context, next) { appendFileSync(process.env.LOADED, url + '\\\\n'); return next(url, context); }"
));
const Module = createRequire(import.meta.url)("node:module");
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  try { appendFileSync(process.env.LOADED, Module._resolveFilename(request, parent) + "\\n"); } catch {}
  return loaded;
};
`;

/** What a process started with `env` loads: the environment that records it, and the paths (file URLs or paths) so far. */
export interface ModuleRecorder {
  readonly env: NodeJS.ProcessEnv;
  loaded(): string[];
}

/** A recorder writing into `dir` (a test's temporary directory), over this process's environment. */
export function moduleRecorder(dir: string): ModuleRecorder {
  writeFileSync(join(dir, "recorder.mjs"), RECORDER);
  const loaded = join(dir, "loaded.txt");
  writeFileSync(loaded, "");
  return {
    env: { ...process.env, LOADED: loaded, NODE_OPTIONS: `--import ${JSON.stringify(join(dir, "recorder.mjs"))}` },
    loaded: () =>
      readFileSync(loaded, "utf8")
        .split("\n")
        .filter((l) => l !== ""),
  };
}
