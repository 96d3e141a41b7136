import assert from "node:assert/strict";
import { describe, it } from "node:test";
import YAML from "yaml";
import { configFileSchema } from "../../src/config/config-schema.js";
import { ERROR_TYPES } from "../../src/graphql/errors.js";
import { DOC_FILES, readDoc } from "../support/doc-files.js";
import { configKeys, kintsugiMetrics, kintsugiProgram, leafCommands } from "../support/public-names.js";

const ALL_DOCS = DOC_FILES.map(readDoc).join("\n");

/** Whether `name` stands in `text` as a name of its own (not as part of a longer one). */
const mentions = (text: string, name: string) => new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`).test(text);

/** The reference tables of docs/configuration.md: each row's key with its type, default and meaning cells. */
function referenceRows(text: string): Map<string, { type: string; default: string; meaning: string }> {
  const rows = new Map<string, { type: string; default: string; meaning: string }>();
  const reference = text.slice(text.indexOf("## Reference: every key"));
  for (const line of reference.split("\n")) {
    const cells = line
      .replace(/\\\|/g, "\u0000")
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.replace(/\u0000/g, "|").trim());
    const key = /^`([^`]+)`$/.exec(cells[0] ?? "")?.[1];
    if (cells.length !== 4 || key === undefined) continue;
    assert.ok(!rows.has(key), `docs/configuration.md lists ${key} twice`);
    rows.set(key, { type: cells[1]!, default: cells[2]!, meaning: cells[3]! });
  }
  return rows;
}

describe("docs/configuration.md's reference lists every key of the config schema, with its type, default and meaning", () => {
  const rows = referenceRows(readDoc("docs/configuration.md"));
  const keys = configKeys(configFileSchema);
  for (const key of keys) {
    it(`config key ${key.path}`, () => {
      const row = rows.get(key.path);
      assert.ok(row, `docs/configuration.md's reference has no row for ${key.path}`);
      assert.ok(row.type !== "" && row.default !== "" && row.meaning !== "", `${key.path}: a cell is empty`);
      if (key.default !== undefined) {
        const written = /`([^`]*)`/.exec(row.default)?.[1];
        assert.equal(written, String(key.default), `${key.path}: the reference says the default is ${row.default}; the schema's is ${key.default}`);
      }
    });
  }
  it("lists no key the schema does not take", () => {
    const known = new Set(keys.map((k) => k.path));
    assert.deepEqual(
      [...rows.keys()].filter((k) => !known.has(k)),
      [],
    );
  });
});

describe("docs/configuration.md's annotated example shows only keys the schema takes", () => {
  const text = readDoc("docs/configuration.md");
  const section = text.slice(text.indexOf("## An annotated example"));
  const example = /^```yaml\n([\s\S]*?)^```/m.exec(section)?.[1];
  it("is there, and every key in it is a key of the schema", () => {
    assert.ok(example, "docs/configuration.md has no annotated example");
    const known = new Set(configKeys(configFileSchema).map((k) => k.path));
    const shown = yamlKeys(YAML.parse(example) as unknown);
    assert.ok(shown.length > 100, `only ${shown.length} keys shown`);
    assert.deepEqual(
      shown.filter((k) => !known.has(k)),
      [],
    );
  });
});

/** The key paths of a parsed YAML value, as configKeys writes them; a label map's own keys are its values' names. */
function yamlKeys(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => yamlKeys(item, `${path}[]`));
  if (value === null || typeof value !== "object" || path.endsWith(".matchLabels")) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const at = path ? `${path}.${key}` : key;
    return [at, ...yamlKeys(inner, at)];
  });
}

describe("the docs name what the issues name: every error type, metric, command and option", () => {
  const api = readDoc("docs/api-and-cli.md");
  for (const type of Object.keys(ERROR_TYPES)) {
    it(`error type ${type}`, () => assert.ok(api.includes(`\`${type}\``), `docs/api-and-cli.md does not name the error type ${type}`));
  }

  const metrics = kintsugiMetrics();
  const metricsPage = readDoc("docs/metrics-and-alerts.md");
  for (const metric of [metrics.registry, metrics.leaderRegistry, metrics.integrationRegistry].flatMap((r) => r.getMetricsAsArray())) {
    it(`metric ${metric.name}`, () => assert.ok(mentions(metricsPage, metric.name), `docs/metrics-and-alerts.md does not name ${metric.name}`));
  }

  const program = kintsugiProgram();
  const globals = program.options.map((o) => o.long ?? "");
  for (const { words, options } of leafCommands(program)) {
    it(`command kintsugi ${words.join(" ")}`, () => {
      const lines = api.split("\n").filter((line) => line.includes(`kintsugi ${words[0]}`) && words.every((w) => mentions(line, w)));
      assert.ok(lines.length > 0, `docs/api-and-cli.md has no line naming kintsugi ${words.join(" ")}`);
      for (const option of options) assert.ok(mentions(ALL_DOCS, option), `the docs do not name ${option} of kintsugi ${words.join(" ")}`);
    });
  }
  for (const option of globals) it(`global option ${option}`, () => assert.ok(mentions(ALL_DOCS, option), `the docs do not name ${option}`));
});
