import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("kintsugi auto-repair and constraints (in-process against a started server)", () => {
  let k: TestKintsugi;
  let dir: ReturnType<typeof tempDir>;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);
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

  // ckecli's get-variables writes the stored bytes as they are (auto_repair_get_variables.go: os.Stdout.Write(data)),
  // set-variables stores the file's bytes (string(data)), and with nothing stored ckecli fails with "not found".
  it("says not found, as ckecli, while no variables were set (CKE's defaults apply)", async () => {
    assert.deepEqual(await cli("auto-repair", "get-variables"), { code: 1, stdout: "", stderr: "kintsugi: not found\n" });
    const applied = await k.gql(`{ autoRepairVariables { having { states } notHaving { roles } text } }`);
    assert.deepEqual(applied.data?.["autoRepairVariables"], { having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] }, text: null });
  });

  it("prints back exactly the bytes set-variables was given, as ckecli", async () => {
    // Odd spacing, a tab, a non-ASCII label value and no final newline: kept as they are.
    const text = `{ "having":{"labels": [{"name": "cluster", "value": "stage\u00e9"}],\t"racks":[0,1,2], "roles": ["cs"], "states": ["UNHEALTHY"], "minDaysBeforeRetire": 90},\n  "notHaving": {"roles": ["boot"]} }`;
    assert.deepEqual(await cli("auto-repair", "set-variables", file("vars.json", text)), { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await cli("auto-repair", "get-variables"), { code: 0, stdout: text, stderr: "" });
    const applied = await k.gql(`{ autoRepairVariables { having { racks roles states minDaysBeforeRetire labels { name value } } notHaving { roles } } }`);
    assert.deepEqual(applied.data?.["autoRepairVariables"], {
      having: { racks: [0, 1, 2], roles: ["cs"], states: ["UNHEALTHY"], minDaysBeforeRetire: 90, labels: [{ name: "cluster", value: "stage\u00e9" }] },
      notHaving: { roles: ["boot"] },
    });
    const printed = (await cli("auto-repair", "get-variables")).stdout;
    assert.deepEqual(
      await cli("auto-repair", "set-variables", file("again.json", printed)),
      { code: 0, stdout: "", stderr: "" },
      "get-variables output feeds set-variables",
    );
  });

  it("ignores the keys CKE ignores, naming each on stderr, and keeps the file as given", async () => {
    const path = file(
      "unknown.json",
      `{"having": {"rack": [1], "states": ["UNREACHABLE"], "labels": [{"name": "a", "value": "b", "op": "="}]}, "Nothaving": {"roles": ["boot"]}, "comment": "x"}\n`,
    );
    const res = await cli("auto-repair", "set-variables", path);
    assert.deepEqual(res, {
      code: 0,
      stdout: "",
      stderr: [`comment`, `having.rack`, `having.labels[0].op`]
        .map((key) => `kintsugi: warning: ${path}: ${key}: unknown key, ignored as CKE ignores it\n`)
        .join(""),
    });
    assert.equal((await cli("auto-repair", "get-variables")).stdout, readFileSync(path, "utf8"));
    const applied = await k.gql(`{ autoRepairVariables { having { racks states labels { name value } } notHaving { roles } } }`);
    assert.deepEqual(
      applied.data?.["autoRepairVariables"],
      { having: { racks: null, states: ["UNREACHABLE"], labels: [{ name: "a", value: "b" }] }, notHaving: { roles: ["boot"] } },
      "Nothaving is notHaving, as Go's encoding/json matches keys",
    );
  });

  it("rejects bad variable files naming the problem, and keeps the stored variables", async () => {
    const before = (await cli("auto-repair", "get-variables")).stdout;
    const notUtf8 = join(dir.path, "latin1.json");
    writeFileSync(notUtf8, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    const cases: Array<[string, RegExp]> = [
      [file("broken.json", "{ having: "), /broken\.json: not valid JSON/],
      [file("list.json", "[]"), /list\.json: must be a JSON object/],
      [file("twice.json", `{"having": {}, "Having": {"racks": [1]}}`), /twice\.json: Having: "having" already gives having/],
      [file("type.json", `{"having": {"racks": "1"}}`), /type\.json: having\.racks: must be a list, got "1"/],
      [file("state.json", `{"having": {"states": ["broken"]}}`), /having\.states\[0\]: unknown machine state "broken" \(INVALID_MACHINE_PARAMS\)/],
      [file("negative.json", `{"notHaving": {"racks": [-3]}}`), /notHaving\.racks\[0\]: must be >= 0 \(INVALID_MACHINE_PARAMS\)/],
      [notUtf8, /latin1\.json: not UTF-8 text/],
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
    assert.deepEqual(Object.keys(values).slice(0, 5), [
      "control-plane-count",
      "minimum-workers-rate",
      "maximum-unreachable-nodes-for-reboot",
      "maximum-repair-queue-entries",
      "wait-seconds-to-repair-rebooting",
    ]);
  });

  it("rejects bad constraints with the reason", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["nope", "1"], /unknown constraint "nope"/],
      [
        ["maximum-repair-queue-entries", "-1"],
        /must be an integer >= 0, got -1: a negative limit would enqueue nothing \(it does not mean unlimited\) \(INVALID_CONSTRAINT\)/,
      ],
      [["maximum-repair-queue-entries", "ten"], /"ten" is not an integer/],
      [
        ["wait-seconds-to-replace-control-plane", "-5"],
        /wait-seconds-to-replace-control-plane must be an integer >= 0, got -5: 0 replaces at once; a negative wait has no meaning \(INVALID_CONSTRAINT\)/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const res = await cli("constraints", "set", ...args);
      assert.notEqual(res.code, 0);
      assert.match(res.stderr, pattern);
    }
    assert.equal(JSON.parse((await cli("constraints", "show")).stdout)["maximum-repair-queue-entries"], 10);
  });
});
