import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

type Version = readonly [number, number, number];

const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const project = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } };

/** `20.19` -> [20, 19, 0]; `x`, `*` and missing parts are null (any). */
function parts(text: string): Array<number | null> {
  return text
    .replace(/^v/, "")
    .split(".")
    .slice(0, 3)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : null));
}

/** `v20.19` -> [20, 19, 0]. */
const versionOf = (text: string): Version => {
  const [major, minor, patch] = parts(text);
  return [major ?? 0, minor ?? 0, patch ?? 0];
};

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one comparator of a semver range (`>=18`, `^20.17.0`, `20.x`, `6.*`, `*`). */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const match = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(comparator)!;
  const op = match[1] ?? "";
  const wanted = parts(match[2]!);
  if (wanted[0] === null) return true;
  const floor: Version = [wanted[0]!, wanted[1] ?? 0, wanted[2] ?? 0];
  const order = compare(version, floor);
  if (op === ">=") return order >= 0;
  if (op === ">") return order > 0;
  if (op === "<") return order < 0;
  if (op === "<=") return order <= 0;
  if (op === "^" || op === "~" || op === "" || op === "=") {
    if (op === "" || op === "=") {
      // Exact in the parts given: `20`, `20.x` and `6.*` take any minor and patch.
      return wanted.every((p, i) => p === null || p === version[i]);
    }
    const caretCeiling: Version = floor[0] > 0 ? [floor[0] + 1, 0, 0] : floor[1] > 0 ? [0, floor[1] + 1, 0] : [0, 0, floor[2] + 1];
    const ceiling: Version = op === "^" ? caretCeiling : [floor[0], floor[1] + 1, 0];
    return order >= 0 && compare(version, ceiling) < 0;
  }
  throw new Error(`cannot read the comparator ${JSON.stringify(comparator)}`);
}

/** Whether `version` satisfies a semver range of comparator sets joined by `||` (no hyphen ranges). */
function satisfies(version: Version, range: string): boolean {
  if (range.includes(" - ")) throw new Error(`cannot read the hyphen range ${JSON.stringify(range)}`);
  return range.split("||").some((set) => {
    const comparators = set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .filter((c) => c !== "");
    return comparators.every((c) => satisfiesComparator(version, c));
  });
}

describe("a semver range reader, as npm reads engines", () => {
  const cases: Array<[string, string, boolean]> = [
    [">=22.13.0", "20.19.0", false],
    [">=18", "20.19.0", true],
    ["^20.17.0 || >=22.9.0", "20.19.0", true],
    ["^20.17.0 || >=22.9.0", "21.0.0", false],
    ["20.x || >=22", "20.19.0", true],
    ["6.* || 8.* || >= 10.*", "20.19.0", true],
    [">= 0.8", "20.19.0", true],
    ["^12.20.0 || ^14.13.1 || >=16.0.0", "20.19.0", true],
    ["~20.18.0", "20.19.0", false],
    ["18 || 20 || >=22", "19.0.0", false],
    ["*", "20.19.0", true],
    [">=20.19", "20.19.0", true],
  ];
  for (const [range, version, expected] of cases) {
    it(`${version} ${expected ? "satisfies" : "does not satisfy"} ${range}`, () => {
      assert.equal(satisfies(versionOf(version), range), expected);
    });
  }
});

describe("every package npm ci installs accepts the Node versions kintsugi supports (no EBADENGINE warning)", () => {
  const minimum = versionOf(project.engines.node.replace(/^>=\s*/, ""));
  const versions: Version[] = [minimum];
  const running = versionOf(process.version);
  if (running[0] === minimum[0]) versions.push(running);
  for (const version of versions) {
    it(`on Node ${version.join(".")}`, () => {
      const refusing = Object.entries(lock.packages)
        .filter(([path]) => path.startsWith("node_modules/"))
        .flatMap(([path, entry]) => {
          const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
          return range === undefined || satisfies(version, range) ? [] : [`${path.replace(/^.*node_modules\//, "")}@${entry.version}: node ${range}`];
        });
      assert.deepEqual(refusing, [], "pin an older release with package.json's overrides, or replace the package");
    });
  }
});
