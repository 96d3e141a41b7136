import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const TEMPLATE = `# our production cluster
name: prod
nodes:
- user: cybozu
  control_plane: true
- user: cybozu
  control_plane: false
service_subnet: 10.68.0.0/16
`;

describe("kintsugi sabakan and kintsugi cluster (in-process against a started server and test sabakan)", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;
  let dir: ReturnType<typeof tempDir>;
  const now = Date.UTC(2026, 10, 22, 6, 0, 0);
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);
  const file = (name: string, text: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => now });
    for (let rack = 1; rack <= 3; rack++) sabakan.addMachine({ serial: `s${rack}`, rack, ipv4: [`10.${rack}.0.1`] });
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 1, maxResponseBytes: 1024 * 1024 } },
      { now: () => now, startSchedule: false, startClusterSchedule: false },
    );
    dir = tempDir();
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
    dir.remove();
  });

  it("says plainly that there is no template and no generated cluster yet", async () => {
    const template = await cli("sabakan", "get-template");
    assert.equal(template.code, 1);
    assert.match(template.stderr, /no cluster template is set/);
    const cluster = await cli("cluster", "get");
    assert.equal(cluster.code, 1);
    assert.match(cluster.stderr, /no cluster configuration has been generated yet/);
    const run = await cli("cluster", "generate");
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no cluster template is set.*\(CLUSTER_GENERATION_UNAVAILABLE\)/);
  });

  it("rejects an invalid template naming the rule, and keeps the stored one", async () => {
    const bad = await cli("sabakan", "set-template", file("bad.yml", "name: x\nnodes:\n- user: a\n  control_plane: true\nservice_subnet: 10.0.0.0/16\n"));
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid cluster template: .*at least two node templates.*\(INVALID_CLUSTER_TEMPLATE\)/);
    const unreadable = await cli("sabakan", "set-template", join(dir.path, "missing.yml"));
    assert.equal(unreadable.code, 1);
    assert.match(unreadable.stderr, /cannot read .*missing\.yml/);
    assert.equal((await cli("sabakan", "get-template")).code, 1, "still no template");
  });

  it("sets the template, prints it parsed as ckecli does (verbatim with --as-set), and prints the generated cluster.yml", async () => {
    assert.deepEqual(await cli("sabakan", "set-template", file("cluster.yml", TEMPLATE)), { code: 0, stdout: "", stderr: "" });
    // ckecli's get-template prints the parsed template through sigs.k8s.io/yaml (sabakan_get_template.go): the comment
    // gone, keys sorted, sequences unindented; for these keys, the lines ckecli prints (ckecli adds CKE's defaults for
    // the sections the template leaves out, and a node's empty address and hostname, which kintsugi does not model).
    const parsed = "name: prod\nnodes:\n- control_plane: true\n  user: cybozu\n- control_plane: false\n  user: cybozu\nservice_subnet: 10.68.0.0/16\n";
    assert.deepEqual(await cli("sabakan", "get-template"), { code: 0, stdout: parsed, stderr: "" });
    assert.deepEqual(await cli("sabakan", "get-template", "--as-set"), { code: 0, stdout: TEMPLATE, stderr: "" });
    const got = await until(
      "cluster get prints the generated cluster",
      () => cli("cluster", "get"),
      (r) => r.code === 0,
      15_000,
    );
    assert.equal(got.code, 0, got.stderr);
    const cluster = parseYaml(got.stdout);
    assert.equal(cluster.name, "prod");
    assert.equal(cluster.service_subnet, "10.68.0.0/16");
    assert.equal(cluster.nodes.length, 2);
    assert.deepEqual(
      cluster.nodes.map((n: { control_plane: boolean }) => n.control_plane),
      [true, false],
    );
    assert.match(cluster.nodes[0].address, /^10\.\d\.0\.1$/);
    assert.deepEqual(await cli("cluster", "get", "--generation", "1"), got, "generation 1 is the one in force");
    const missing = await cli("cluster", "get", "--generation", "7");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /generation 7 is not kept/);
  });

  it("runs a round on demand and prints the history", async () => {
    const unchanged = await cli("cluster", "generate");
    assert.equal(unchanged.code, 0, unchanged.stderr);
    assert.deepEqual(JSON.parse(unchanged.stdout), { outcome: "UNCHANGED", generation: 1, record: null });
    sabakan.failWithStatus(500, "boom");
    const failed = await cli("cluster", "generate");
    assert.equal(failed.code, 1);
    assert.equal(JSON.parse(failed.stdout).outcome, "FAILED");
    assert.match(failed.stderr, /cluster generation failed: sabakan at .*answered HTTP 500/);
    const history = await cli("cluster", "history", "--last", "5");
    assert.equal(history.code, 0);
    const records = JSON.parse(history.stdout) as Array<{ outcome: string; generation: number; trigger: string; policy: string }>;
    assert.deepEqual(
      records.map((r) => [r.outcome, r.generation, r.trigger, r.policy]),
      [
        ["GENERATED", 1, "TEMPLATE", "WEIGHTED"],
        ["FAILED", 1, "OPERATOR", "WEIGHTED"],
      ],
    );
    assert.equal((await cli("cluster", "history", "--last", "x")).code, 1);
  });

  // ckecli's sabakan get-variables writes the stored bytes (sabakan_get_variables.go) and says "not found" while none
  // were set; set-variables reads FILE as CKE does (sabakan_set_variables.go), ignoring keys CKE ignores.
  it("says not found while no variables were set, then prints back exactly the bytes set-variables was given", async () => {
    assert.deepEqual(await cli("sabakan", "get-variables"), { code: 1, stdout: "", stderr: "kintsugi: not found\n" });
    const text = `{"having": {"racks": [1, 2]},\n "notHaving": {"roles": ["boot"], "states": ["RETIRED", "RETIRING"], "serials": ["x"]}}`;
    const path = file("vars.json", text);
    assert.deepEqual(await cli("sabakan", "set-variables", path), {
      code: 0,
      stdout: "",
      stderr: `kintsugi: warning: ${path}: notHaving.serials: unknown key, ignored as CKE ignores it\n`,
    });
    assert.deepEqual(await cli("sabakan", "get-variables"), { code: 0, stdout: text, stderr: "" });
    const applied = await k.gql(`{ clusterVariables { having { racks } notHaving { roles states } } }`);
    assert.deepEqual(applied.data?.["clusterVariables"], { having: { racks: [1, 2] }, notHaving: { roles: ["boot"], states: ["RETIRED", "RETIRING"] } });
    const bad = await cli("sabakan", "set-variables", file("bad.json", `{"having": {"racks": [-1]}}`));
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /having\.racks\[0\]: must be >= 0 \(INVALID_MACHINE_PARAMS\)/);
    assert.equal((await cli("sabakan", "get-variables")).stdout, text, "kept");
    assert.deepEqual(
      await cli("auto-repair", "get-variables"),
      { code: 1, stdout: "", stderr: "kintsugi: not found\n" },
      "auto-repair's variables are separate",
    );
  });

  it("enables, disables and reports cluster generation", async () => {
    assert.deepEqual(await cli("sabakan", "is-enabled"), { code: 0, stdout: "true\n", stderr: "" });
    assert.equal((await cli("sabakan", "disable")).code, 0);
    assert.deepEqual(await cli("sabakan", "is-enabled"), { code: 0, stdout: "false\n", stderr: "" });
    const run = await cli("cluster", "generate");
    assert.match(run.stderr, /cluster generation is disabled/);
    assert.equal((await cli("cluster", "get")).code, 0, "the configuration in force stays readable");
    assert.equal((await cli("sabakan", "enable")).code, 0);
    assert.deepEqual(await cli("sabakan", "is-enabled"), { code: 0, stdout: "true\n", stderr: "" });
  });
});
