import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Command } from "commander";
import type { z } from "zod";
import { buildProgram } from "../../src/cli/main.js";
import { configFileSchema } from "../../src/config/config-schema.js";
import { ERROR_TYPES } from "../../src/graphql/errors.js";
import { KintsugiMetrics } from "../../src/graphql/metrics.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** Whether `name` stands in `text` as a name of its own (not as part of a longer one). */
const mentions = (text: string, name: string) => new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`).test(text);

/** Every key of the config file's schema, as `a.b[].c` paths. */
function configKeys(schema: z.ZodType, path = "", out: string[] = []): string[] {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType> };
  if (def.innerType) return configKeys(def.innerType, path, out);
  if (def.type === "pipe" && def.in) return configKeys(def.in, path, out);
  if (def.type === "array" && def.element) return configKeys(def.element, `${path}[]`, out);
  if (def.type === "object" && def.shape) {
    for (const [key, value] of Object.entries(def.shape)) {
      const at = path ? `${path}.${key}` : key;
      out.push(at);
      configKeys(value, at, out);
    }
  }
  return out;
}

/** Every leaf command as its words after `kintsugi`, with its long options. */
function commands(command: Command, words: string[] = []): Array<{ words: string[]; options: string[] }> {
  if (command.commands.length === 0) return [{ words, options: command.options.map((o) => o.long ?? "").filter((l) => l !== "") }];
  return command.commands.flatMap((sub) => commands(sub, [...words, sub.name()]));
}

describe("README names what the issues name: every config key, error type, metric, command and option", () => {
  const configuration = README.slice(README.indexOf("## Configuration"), README.indexOf("## Sabakan-triggered repair"));
  for (const key of configKeys(configFileSchema)) {
    it(`config key ${key}`, () =>
      assert.ok(
        mentions(
          configuration,
          key
            .split(/[.[\]]+/)
            .filter(Boolean)
            .at(-1) as string,
        ),
        `README's Configuration section does not name ${key}`,
      ));
  }

  for (const type of Object.keys(ERROR_TYPES)) {
    it(`error type ${type}`, () => assert.ok(README.includes(`\`${type}\``), `README does not name the error type ${type}`));
  }

  const metrics = new KintsugiMetrics({
    entries: () => [],
    repairQueueEnabled: () => true,
    autoRepairEnabled: () => true,
    now: () => 0,
    clusterGeneration: () => ({ current: null, latest: null }),
    unusedMachines: () => null,
    isLeader: () => true,
    subscriptions: () => new Map(),
  });
  const section = README.slice(README.indexOf("## Metrics"), README.indexOf("## Development"));
  for (const metric of metrics.registry.getMetricsAsArray()) {
    it(`metric ${metric.name}`, () => assert.ok(mentions(section, metric.name), `README's Metrics section does not name ${metric.name}`));
  }

  const program = buildProgram({
    out: () => undefined,
    client: () => {
      throw new Error("not used");
    },
  });
  const globals = program.options.map((o) => o.long ?? "");
  for (const { words, options } of commands(program)) {
    it(`command kintsugi ${words.join(" ")}`, () => {
      const lines = README.split("\n").filter((line) => line.includes(`kintsugi ${words[0]}`) && words.every((w) => mentions(line, w)));
      assert.ok(lines.length > 0, `README has no line naming kintsugi ${words.join(" ")}`);
      for (const option of options) assert.ok(mentions(README, option), `README does not name ${option} of kintsugi ${words.join(" ")}`);
    });
  }
  for (const option of globals) it(`global option ${option}`, () => assert.ok(mentions(README, option), `README does not name ${option}`));
});
