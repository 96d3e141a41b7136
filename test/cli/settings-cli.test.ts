import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCli } from "../support/run-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("kintsugi auto-repair and constraints (the real binary against a started server)", () => {
  let k: TestKintsugi;
  let dir: ReturnType<typeof tempDir>;
  const cli = (...args: string[]) => runCli(["--server", k.url, ...args]);
  const file = (name: string, text: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    k = await startTestKintsugi();
    dir = tempDir();
  });
  after(async () => {
    await k.dispose();
    dir.remove();
  });

  it("enables, disables and reports auto-repair", async () => {
    assert.deepEqual(await cli("auto-repair", "is-enabled"), { code: 0, stdout: "true\n", stderr: "" });
    assert.equal((await cli("auto-repair", "disable")).code, 0);
    assert.deepEqual(await cli("auto-repair", "is-enabled"), { code: 0, stdout: "false\n", stderr: "" });
    assert.equal((await cli("auto-repair", "enable")).code, 0);
    assert.deepEqual(await cli("auto-repair", "is-enabled"), { code: 0, stdout: "true\n", stderr: "" });
  });

  it("prints the default variables, replaces them from a file, and prints them back", async () => {
    const defaults = await cli("auto-repair", "get-variables");
    assert.equal(defaults.stdout, `${JSON.stringify({ having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] } }, null, 4)}\n`);
    const variables = {
      having: { labels: [{ name: "cluster", value: "stage0" }], racks: [0, 1, 2], roles: ["cs"], states: ["UNHEALTHY"], minDaysBeforeRetire: 90 },
      notHaving: { roles: ["boot"] },
    };
    const path = file("vars.json", JSON.stringify(variables));
    assert.deepEqual(await cli("auto-repair", "set-variables", path), { code: 0, stdout: "", stderr: "" });
    const printed = await cli("auto-repair", "get-variables");
    assert.deepEqual(JSON.parse(printed.stdout), variables);
    assert.deepEqual(await cli("auto-repair", "set-variables", file("again.json", printed.stdout)), { code: 0, stdout: "", stderr: "" }, "get-variables output feeds set-variables");
  });

  it("rejects bad variable files naming the problem, and keeps the stored variables", async () => {
    const before = (await cli("auto-repair", "get-variables")).stdout;
    const cases: Array<[string, RegExp]> = [
      [file("broken.json", "{ having: "), /broken\.json: not valid JSON/],
      [file("list.json", "[]"), /list\.json: must be a JSON object/],
      [file("extra.json", `{"having": {}, "nothaving": {}}`), /extra\.json: unknown key "nothaving"/],
      [file("field.json", `{"having": {"rack": [1]}}`), /Field "rack" is not defined by type "MachineParams"/],
      [file("state.json", `{"having": {"states": ["broken"]}}`), /Value "broken" does not exist in "MachineState" enum/],
      [file("negative.json", `{"notHaving": {"racks": [-3]}}`), /notHaving\.racks\[0\]: must be >= 0 \(INVALID_MACHINE_PARAMS\)/],
      [join(dir.path, "missing.json"), /cannot read .*missing\.json/],
    ];
    for (const [path, pattern] of cases) {
      const res = await cli("auto-repair", "set-variables", path);
      assert.equal(res.code, 1, path);
      assert.match(res.stderr, pattern);
    }
    assert.equal((await cli("auto-repair", "get-variables")).stdout, before);
  });

  it("shows constraints with CKE's names and sets them", async () => {
    const shown = await cli("constraints", "show");
    assert.equal(
      shown.stdout,
      // CKE's five in CKE's order (constraints.go), as ckecli prints them, then kintsugi's own.
      `${JSON.stringify({ "control-plane-count": 1, "minimum-workers-rate": 80, "maximum-unreachable-nodes-for-reboot": 0, "maximum-repair-queue-entries": 0, "wait-seconds-to-repair-rebooting": 0, "maximum-unhealthy-machines-per-rack": 0, "minimum-workers": 1, "maximum-workers": 0, "wait-seconds-to-replace-control-plane": 1800 }, null, 4)}\n`,
    );
    assert.deepEqual(await cli("constraints", "set", "maximum-repair-queue-entries", "10"), { code: 0, stdout: "", stderr: "" });
    assert.equal(JSON.parse((await cli("constraints", "show")).stdout)["maximum-repair-queue-entries"], 10);
    assert.deepEqual(await cli("constraints", "set", "wait-seconds-to-replace-control-plane", "0"), { code: 0, stdout: "", stderr: "" });
    assert.equal(JSON.parse((await cli("constraints", "show")).stdout)["wait-seconds-to-replace-control-plane"], 0);
  });

  it("takes CKE's minimum-workers-rate and maximum-unreachable-nodes-for-reboot, and answers to ckecli's alias cstr", async () => {
    assert.deepEqual(await cli("constraints", "set", "minimum-workers-rate", "50"), { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await cli("cstr", "set", "maximum-unreachable-nodes-for-reboot", "2"), { code: 0, stdout: "", stderr: "" });
    const shown = await cli("cstr", "show");
    assert.equal(shown.code, 0);
    const values = JSON.parse(shown.stdout) as Record<string, number>;
    assert.equal(values["minimum-workers-rate"], 50);
    assert.equal(values["maximum-unreachable-nodes-for-reboot"], 2);
    assert.deepEqual(Object.keys(values).slice(0, 5), ["control-plane-count", "minimum-workers-rate", "maximum-unreachable-nodes-for-reboot", "maximum-repair-queue-entries", "wait-seconds-to-repair-rebooting"]);
  });

  it("rejects bad constraints with the reason", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["nope", "1"], /unknown constraint "nope"/],
      [["maximum-repair-queue-entries", "-1"], /must be an integer >= 0, got -1: a negative limit would enqueue nothing \(it does not mean unlimited\) \(INVALID_CONSTRAINT\)/],
      [["maximum-repair-queue-entries", "ten"], /"ten" is not an integer/],
      [["wait-seconds-to-replace-control-plane", "-5"], /wait-seconds-to-replace-control-plane must be an integer >= 0, got -5: 0 replaces at once; a negative wait has no meaning \(INVALID_CONSTRAINT\)/],
    ];
    for (const [args, pattern] of cases) {
      const res = await cli("constraints", "set", ...args);
      assert.notEqual(res.code, 0);
      assert.match(res.stderr, pattern);
    }
    assert.equal(JSON.parse((await cli("constraints", "show")).stdout)["maximum-repair-queue-entries"], 10);
  });
});
