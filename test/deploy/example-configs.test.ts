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

describe("deploy/kintsugi.yaml proves a repair by what broke, not by power (the others repair alike, above)", () => {
  interface Operation {
    operation: string;
    success_requires?: string[];
  }
  const config = YAML.parse(read("deploy/kintsugi.yaml")) as {
    repair: { repair_procedures: Array<{ repair_operations: Operation[] }> };
    health_checks: Array<{ operation: string }>;
  };
  const fromHealthChecks = new Set(config.health_checks.map((h) => h.operation));
  for (const op of config.repair.repair_procedures.flatMap((p) => p.repair_operations)) {
    const broke = fromHealthChecks.has(op.operation) ? "node_ready" : "sabakan_healthy";
    it(`${op.operation}: success_requires ${broke} (${fromHealthChecks.has(op.operation) ? "a NotReady node enqueues it" : "a sabakan state enqueues it"})`, () => {
      assert.deepEqual(op.success_requires, [broke]);
    });
  }
});
