import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/main.js";

/** Every command of the tree with its words after `kintsugi` (the program itself first, as []). */
function everyCommand(command: Command, words: string[] = []): Array<{ words: string[]; command: Command }> {
  return [{ words, command }, ...command.commands.flatMap((sub) => everyCommand(sub, [...words, sub.name()]))];
}

describe("help text", () => {
  const program = buildProgram({
    out: () => undefined,
    client: () => {
      throw new Error("not used");
    },
  });
  for (const { words, command } of everyCommand(program)) {
    it(`kintsugi ${words.join(" ")} --help shows no duration in milliseconds`, () => {
      const help = command.helpInformation().replace(/\s+/g, " ");
      // A default of 1800000 or 2000 is a duration in milliseconds leaking from a parser; no count kintsugi shows reaches 1000.
      assert.doesNotMatch(help, /default: "?\d{4,}/, help);
      for (const option of command.options) {
        if (option.defaultValue === undefined) continue;
        const unit = /<(SECONDS|DURATION|MS)>/.exec(option.flags)?.[1];
        if (unit === "SECONDS")
          assert.ok(Number(option.defaultValue) < 86_400, `${option.flags}: default ${String(option.defaultValue)} is no number of seconds`);
        assert.notEqual(unit, "MS", `${option.flags}: durations are given in seconds or as Go durations`);
        if (unit === "DURATION")
          assert.ok(option.defaultValueDescription !== undefined, `${option.flags}: a parsed duration's default prints as milliseconds; describe it`);
      }
    });
  }
});
