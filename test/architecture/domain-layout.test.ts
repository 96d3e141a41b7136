import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";

// The layout of docs/architecture.md ("The folders of src/domain/"): every rule in its feature's folder, the tests
// beside them in the same folders, and no barrel file, so an import names the file it needs.
const SRC_DOMAIN = resolve(import.meta.dirname, "../../src/domain");
const TEST_DOMAIN = resolve(import.meta.dirname, "../domain");

const entries = (dir: string) => readdirSync(dir, { withFileTypes: true });
const rootFiles = (dir: string) =>
  entries(dir)
    .filter((d) => d.isFile())
    .map((d) => d.name);
const folders = (dir: string) =>
  entries(dir)
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

function filesUnder(dir: string): string[] {
  return entries(dir).flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : [join(dir, d.name)]));
}

describe("the layout of src/domain/ and test/domain/", () => {
  it("has feature folders", () => {
    assert.ok(folders(SRC_DOMAIN).length >= 10, `only ${folders(SRC_DOMAIN).join(", ")}`);
  });

  it("keeps no file in the root of src/domain/ (a rule goes in its feature's folder)", () => {
    assert.deepEqual(rootFiles(SRC_DOMAIN), []);
  });

  it("keeps no file in the root of test/domain/ (a test goes beside its rule's folder)", () => {
    assert.deepEqual(rootFiles(TEST_DOMAIN), []);
  });

  it("has a test folder only for a feature folder", () => {
    const features = new Set(folders(SRC_DOMAIN));
    assert.deepEqual(
      folders(TEST_DOMAIN).filter((f) => !features.has(f)),
      [],
    );
  });

  it("has no barrel file (index.ts): imports name the file they need", () => {
    assert.deepEqual(
      filesUnder(SRC_DOMAIN).filter((f) => /[/\\]index\.[cm]?ts$/.test(f)),
      [],
    );
  });
});
