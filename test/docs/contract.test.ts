import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CONTRACT_FILE, contractBlocks } from "../support/contract-file.js";
import { CONTRACT_SECTIONS, flatNames, parseNames, publicNamesInCode, renderNames } from "../support/public-names.js";
import { REPO } from "../support/doc-files.js";

const text = readFileSync(CONTRACT_FILE, "utf8");
const written = contractBlocks(text);
const code = publicNamesInCode();

describe("docs/contract.md lists the public names the code has, and the code keeps every name it lists", () => {
  for (const section of CONTRACT_SECTIONS) {
    const inCode = new Set(flatNames(code[section]));
    const listed = new Set(flatNames(written[section]));
    it(`${section}: finds the names it compares`, () => assert.ok(inCode.size >= 5, `only ${inCode.size} ${section} names in the code`));
    it(`${section}: every name of the code is listed (a new name: run npm run contract)`, () => {
      assert.deepEqual(
        [...inCode].filter((n) => !listed.has(n)),
        [],
      );
    });
    it(`${section}: every listed name is still in the code (a name gone is a broken contract)`, () => {
      assert.deepEqual(
        [...listed].filter((n) => !inCode.has(n)),
        [],
      );
    });
  }

  it("every name kept by hand stands in src/ as written", () => {
    const hand = text.slice(text.indexOf("## Other names"));
    const names = [...hand.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((n) => n !== "src/");
    assert.ok(names.length >= 10, `only ${names.length} names kept by hand`);
    const src = (readdirSync(join(REPO, "src"), { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts") && !f.includes("generated"))
      .map((f) => readFileSync(join(REPO, "src", f), "utf8"))
      .join("\n");
    assert.deepEqual(
      names.filter((n) => !src.includes(`"${n}`) && !src.includes(`\`${n}`)),
      [],
    );
  });
});

describe("the contract's lists themselves", () => {
  it("read back as written: a group, its members, their arguments", () => {
    const names = parseNames(["- `Query`: `a(x, y)`, `b`", "- `Lone`"]);
    assert.deepEqual(flatNames(names), ["Lone", "Query", "Query a", "Query a(x)", "Query a(y)", "Query b"]);
    assert.deepEqual(renderNames(names), ["- `Lone`", "- `Query`: `a(x, y)`, `b`"]);
  });

  it("a removed argument or member is a name gone; an added one a name new", () => {
    const before = new Set(flatNames(parseNames(["- `Query`: `a(x, y)`, `b`"])));
    const after = new Set(flatNames(parseNames(["- `Query`: `a(x, z)`"])));
    assert.deepEqual(
      [...before].filter((n) => !after.has(n)),
      ["Query a(y)", "Query b"],
    );
    assert.deepEqual(
      [...after].filter((n) => !before.has(n)),
      ["Query a(z)"],
    );
  });

  it("a line it cannot read is named", () => {
    assert.throws(() => parseNames(["* Query"]), /cannot read the contract line "\* Query"/);
  });
});
