import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import YAML from "yaml";
import { checkShippedConfig } from "../support/shipped-config.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("the example configs in deploy/ pass the real `kintsugi check-config` where they are installed", () => {
  const cases = [
    { file: "deploy/kintsugi.yaml", store: "sqlite" },
    { file: "deploy/kintsugi-etcd.yaml", store: "etcd" },
  ] as const;
  for (const { file, store } of cases) {
    it(`${file} (store: ${store})`, async () => {
      const result = await checkShippedConfig(read(file), "kintsugi.yaml");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /kintsugi\.yaml: ok\n$/);
    });
  }

  it("the two differ only in the store and its sections", () => {
    const withoutStore = (text: string) => {
      const { store: _store, database: _database, etcd: _etcd, leader_election: _election, ...rest } = YAML.parse(text) as Record<string, unknown>;
      return rest;
    };
    assert.deepEqual(withoutStore(read("deploy/kintsugi-etcd.yaml")), withoutStore(read("deploy/kintsugi.yaml")));
  });
});
