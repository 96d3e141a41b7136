import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import YAML from "yaml";
import { checkShippedConfig } from "../support/shipped-config.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

const CONFIGS = [
  { file: "deploy/kintsugi.yaml", store: "sqlite" },
  { file: "deploy/kintsugi-etcd.yaml", store: "etcd" },
  // What the overlays put in their ConfigMap (also checked rendered, where kubectl is installed).
  { file: "deploy/kubernetes/sqlite/kintsugi.yaml", store: "sqlite" },
  { file: "deploy/kubernetes/etcd/kintsugi.yaml", store: "etcd" },
] as const;

describe("the configs in deploy/ pass the real `kintsugi check-config` where they are installed", () => {
  for (const { file, store } of CONFIGS) {
    it(`${file} (store: ${store})`, async () => {
      assert.equal((YAML.parse(read(file)) as { store: string }).store, store);
      const result = await checkShippedConfig(read(file), "kintsugi.yaml");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /kintsugi\.yaml: ok\n$/);
      assert.doesNotMatch(result.stdout, /warning/, "sabakan's BMC types as sabakan spells them, and only keys kintsugi knows");
    });
  }
});

describe("the configs in deploy/ repair alike: they differ only where they run", () => {
  const policy = (file: string) => {
    const { repair, health_checks, constraints, auth } = YAML.parse(read(file)) as Record<string, unknown>;
    return { repair, health_checks, constraints, anonymous: (auth as { anonymous?: string }).anonymous };
  };
  for (const { file } of CONFIGS.slice(1)) {
    it(`${file}: the repair procedures, health checks, constraints and anonymous access of deploy/kintsugi.yaml`, () => {
      assert.deepEqual(policy(file), policy("deploy/kintsugi.yaml"));
    });
  }
});
