import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { mutated, occurrences, StaleMutantError } from "../../src/sim/mutants/apply-mutant.js";
import { ISSUE_35_MUTANTS, MUTANTS, type Mutant } from "../../src/sim/mutants/mutant-catalogue.js";

// Cheap: no sweep runs here (npm run sim:mutants runs it on each mutant). This holds the catalogue to the source as it
// is: a rule that moved leaves its mutant stale, and the mutant must be written again, not silently skipped.
describe("the simulator's mutant catalogue", () => {
  it("names at least 25 mutants, each once, among them the twelve rules the simulator once missed", () => {
    const names = MUTANTS.map((m) => m.name);
    assert.ok(names.length >= 25, `${names.length} mutants`);
    assert.equal(new Set(names).size, names.length, "a name is used twice");
    for (const name of ISSUE_35_MUTANTS) assert.ok(names.includes(name), `${name} is missing`);
    for (const m of MUTANTS) assert.match(m.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
  for (const m of MUTANTS) {
    it(`${m.name}: applies to ${m.file} as it is (its text there exactly once) and changes it`, () => {
      const text = readFileSync(m.file, "utf8");
      assert.equal(occurrences(text, m.find), 1, `${m.file} has ${occurrences(text, m.find)} occurrences of ${JSON.stringify(m.find)}`);
      const after = mutated(m, text);
      assert.notEqual(after, text);
      assert.equal(after.length - text.length, m.replace.length - m.find.length);
    });
  }
  const stale: ReadonlyArray<{ name: string; text: string; error: RegExp }> = [
    { name: "its text is gone", text: "const a = 1;", error: /no longer applies: x\.ts has no occurrences/ },
    { name: "its text occurs twice", text: "if (x) {}\nif (x) {}", error: /no longer applies: x\.ts has 2 occurrences/ },
  ];
  for (const c of stale) {
    it(`a mutant whose ${c.name} fails loudly`, () => {
      const mutant: Mutant = { name: "sample", rule: "a rule", file: "x.ts", find: "if (x) {}", replace: "if (true) {}" };
      assert.throws(
        () => mutated(mutant, c.text),
        (err: unknown) => err instanceof StaleMutantError && c.error.test(err.message),
      );
    });
  }
});
