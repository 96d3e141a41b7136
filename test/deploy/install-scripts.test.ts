import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};
const project = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { allowScripts: Record<string, boolean> };

/** `node_modules/a/node_modules/@b/c` -> `@b/c`. */
const nameOf = (path: string) => path.replace(/^.*node_modules\//, "");
const installed = Object.keys(lock.packages)
  .filter((path) => path.startsWith("node_modules/"))
  .map(nameOf);

// npm 11.16 and later warn at every `npm ci` about a dependency's install script that allowScripts neither approves
// nor denies, and npm 12 skips it: each is decided in package.json (protobufjs's only prints advice, so it is denied).
describe("package.json's allowScripts decides every install script npm ci meets", () => {
  it("every dependency with an install script is approved (true) or denied (false)", () => {
    const undecided = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith("node_modules/") && entry.hasInstallScript === true)
      .map(([path]) => nameOf(path))
      .filter((name) => !(name in project.allowScripts));
    assert.deepEqual(undecided, []);
  });

  it("names only packages that are installed", () => {
    assert.deepEqual(
      Object.keys(project.allowScripts).filter((name) => !installed.includes(name)),
      [],
    );
  });
});
