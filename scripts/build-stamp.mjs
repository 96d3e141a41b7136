// What dist/ was built from, so that `prepare` builds only when the checkout changed. npm runs `prepare` after
// `npm ci` and again whenever the checkout is installed as a dependency, which is what `npx kintsugi` does in a
// checkout (it links the folder into its cache): without the stamp, the first `npx kintsugi` rebuilt everything
// (about 35 s of CPU, the Kubernetes client bundle most of it) only to run what `npm ci` had just built.
//
//   node scripts/build-stamp.mjs clear   forget the stamp (the build starts with it, so a failed build leaves none)
//   node scripts/build-stamp.mjs write   stamp dist/ with the digest of the build's inputs (the build ends with it)
//   node scripts/build-stamp.mjs fresh   exit 0 when dist/ is stamped with the inputs as they are now, 1 otherwise
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", ".build-inputs.sha256");

// Everything `npm run build` reads: the sources, the build scripts and the pages they bundle, the compiler settings,
// and the lockfile (the bundles embed the installed packages).
const INPUTS = [
  "src",
  "scripts/build-dist.mjs",
  "scripts/build-cli.mjs",
  "scripts/build-package-bundles.mjs",
  "scripts/build-graphiql.mjs",
  "scripts/build-status-page.mjs",
  "scripts/graphiql-page",
  "scripts/status-page",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "package-lock.json",
];
// What a build leaves that must be there for dist/ to run: a stamp alone proves nothing about a folder since emptied.
const OUTPUTS = [
  "dist/kintsugi-cli.js",
  "dist/cli-check-config.js",
  "dist/cli-db-copy.js",
  "dist/cli-db-backup.js",
  "dist/cli-db-check.js",
  "dist/cli-check-config.cjs",
  "dist/cli-db-copy.cjs",
  "dist/cli-db-backup.cjs",
  "dist/cli-db-check.cjs",
  "dist/cli/main.js",
  "dist/main.js",
  "dist/adapters/kube-client.js",
  "dist/graphiql/graphiql.js",
  "dist/status/status.js",
];

/** The files of `path` (a file or a folder, relative to the root), relative to the root; none when it is absent. */
function files(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  const entries = readdirSync(full, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name)));
}

function digest() {
  const hash = createHash("sha256");
  for (const file of INPUTS.flatMap(files).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const command = process.argv[2];
if (command === "clear") {
  rmSync(stamp, { force: true });
} else if (command === "write") {
  writeFileSync(stamp, `${digest()}\n`);
} else if (command === "fresh") {
  const fresh = existsSync(stamp) && OUTPUTS.every((o) => existsSync(join(root, o))) && readFileSync(stamp, "utf8").trim() === digest();
  if (fresh) console.log("kintsugi: dist/ is built from this checkout as it is; not building it again");
  process.exit(fresh ? 0 : 1);
} else {
  console.error("usage: node scripts/build-stamp.mjs clear|write|fresh");
  process.exit(2);
}
