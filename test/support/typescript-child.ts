import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// A test that starts a node process on a TypeScript file of the checkout (a child script, the demo, a module for
// `node -e`) runs the transpiled .js that scripts/run-tests.mjs wrote into .test-build/ (it names the folder in
// KINTSUGI_TEST_BUILD), which starts about 0.5 s of CPU sooner than tsx; run any other way, the .ts through tsx.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TEST_BUILD = process.env.KINTSUGI_TEST_BUILD;

/** node's options that let it run the file `typescriptEntry` returns. */
export const typescriptLoader = (): string[] => (TEST_BUILD ? ["--enable-source-maps"] : ["--import", "tsx"]);

/** The file node runs for a .ts file of the checkout (an absolute path): its transpiled .js, or itself under tsx. */
export const typescriptEntry = (file: string): string => (TEST_BUILD ? join(TEST_BUILD, relative(ROOT, file)).replace(/\.ts$/, ".js") : file);

/** node's arguments that run the .ts file `file` (an absolute path of the checkout). */
export const typescriptArgs = (file: string): string[] => [...typescriptLoader(), typescriptEntry(file)];
