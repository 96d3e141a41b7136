import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";

// A right-to-left override, a C1 control (next line), DEL and a first-strong isolate: a terminal acts on or hides
// each of them, and JSON.stringify leaves them all raw.
const SERIAL = "r0m1\u202Eevil\u0085\u007f\u2068";
const SERIAL_IN_JSON = '"r0m1\\u202eevil\\u0085\\u007f\\u2068"';
const REASON = "swap \u202Edisk\u009b31m";
const REASON_IN_TABLE = "swap \\u202edisk\\x9b31m";
/** Every character the CLI must never print raw (C0 but the newline, which is JSON's and the table's layout). */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Every string anywhere in a parsed JSON value. */
const stringsIn = (value: unknown): string[] =>
  typeof value === "string" ? [value] : value !== null && typeof value === "object" ? Object.values(value).flatMap(stringsIn) : [];

describe("the CLI prints hostile text from sabakan and the API escaped (in-process)", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);

  before(async () => {
    sabakan = await startFakeSabakan();
    sabakan.addMachine({ serial: SERIAL, rack: 0, ipv4: ["10.0.0.1"], state: "UNHEALTHY" });
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } },
      { startSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("JSON: controls as \\u escapes, still valid JSON giving back the original string", async () => {
    const res = await cli("auto-repair", "run");
    assert.ok(res.stdout.includes(SERIAL_IN_JSON), res.stdout);
    assert.doesNotMatch(res.stdout, RAW);
    assert.ok(stringsIn(JSON.parse(res.stdout)).includes(SERIAL), "parsing gives back the serial sabakan sent");
  });

  it("tables: controls as visible escapes", async () => {
    assert.equal((await cli("machine", "hold", "10.0.0.1", "--reason", REASON)).code, 0);
    const table = await cli("machine", "holds");
    assert.equal(table.code, 0, table.stderr);
    assert.ok(table.stdout.includes(REASON_IN_TABLE), table.stdout);
    assert.doesNotMatch(table.stdout, RAW);
    const json = await cli("machine", "holds", "--json");
    assert.doesNotMatch(json.stdout, RAW);
    assert.deepEqual(
      stringsIn(JSON.parse(json.stdout)).filter((s) => s.startsWith("swap")),
      [REASON],
    );
  });
});
