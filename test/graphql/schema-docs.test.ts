import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parse, type DefinitionNode } from "graphql";

// kintsugi's own schema files; sabakan.graphql is sabakan's, spelled (and documented) as sabakan does.
const OWN = [
  "kintsugi.graphql",
  "gateway.graphql",
  "health-checks.graphql",
  "cluster.graphql",
  "machine-holds.graphql",
  "repair-stats.graphql",
  "replay.graphql",
];

function undocumented(definition: DefinitionNode): string[] {
  const missing: string[] = [];
  if (!("name" in definition) || !definition.name) return missing;
  const name = definition.name.value;
  const isExtension = definition.kind.endsWith("Extension");
  if (!isExtension && !("description" in definition && definition.description)) missing.push(name);
  const fields = "fields" in definition ? (definition.fields ?? []) : [];
  const values = "values" in definition ? (definition.values ?? []) : [];
  for (const f of [...fields, ...values]) if (!f.description) missing.push(`${name}.${f.name.value}`);
  return missing;
}

describe("kintsugi's schema", () => {
  for (const file of OWN) {
    it(`${file} has a docstring on every type, field and enum value`, () => {
      const doc = parse(readFileSync(new URL(`../../schema/${file}`, import.meta.url), "utf8"));
      assert.deepEqual(doc.definitions.flatMap(undocumented), []);
    });
  }
});
