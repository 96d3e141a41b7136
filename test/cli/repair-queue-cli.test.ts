import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { NOW } from "../support/fixtures.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { withSideStore } from "../support/side-store.js";

/** An ephemeral port that nothing listens on any more. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("kintsugi repair-queue (in-process against a started server)", () => {
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, "repair-queue", ...args]);
  const setStatus = (index: number, status: "succeeded" | "failed" | "processing", backoff = 0) =>
    withSideStore(k, (side) => side.transition(index, { status, drainBackoffCount: backoff, drainBackoffExpire: backoff ? NOW + 300_000 : null }));

  before(async () => {
    k = await startTestKintsugi({}, { now: () => NOW });
  });
  after(() => k.dispose());

  it("adds entries printing nothing, as ckecli's add (repair_queue_add.go) prints nothing; --json prints the new entry", async () => {
    assert.deepEqual(await cli("add", "unreachable", "qemu", "10.0.0.1"), { code: 0, stdout: "", stderr: "" });
    const added = await cli("add", "--json", "unhealthy", "ipmi-2.0", "10.0.0.2", "serial-2");
    assert.equal(added.code, 0, added.stderr);
    const entry = JSON.parse(added.stdout) as Record<string, unknown>;
    assert.deepEqual([entry["index"], entry["address"], entry["serial"], entry["status"]], ["2", "10.0.0.2", "serial-2", "queued"]);
    assert.equal(added.stdout, `${JSON.stringify(entry, null, 4)}\n`, "ckecli's JSON layout");
  });

  it("lists entries as ckecli does: a JSON array of CKE's RepairQueueEntry, its keys in the struct's order, 4-space indented", async () => {
    const res = await cli("list");
    assert.equal(res.code, 0);
    const zero = "0001-01-01T00:00:00Z";
    const want = [
      {
        index: "1",
        address: "10.0.0.1",
        nodename: "",
        machine_type: "qemu",
        operation: "unreachable",
        status: "queued",
        step: 0,
        step_status: "waiting",
        deleted: false,
        last_transition_time: "2026-11-22T05:00:00Z",
        drain_backoff_expire: zero,
      },
      {
        index: "2",
        address: "10.0.0.2",
        nodename: "",
        serial: "serial-2",
        machine_type: "ipmi-2.0",
        operation: "unhealthy",
        status: "queued",
        step: 0,
        step_status: "waiting",
        deleted: false,
        last_transition_time: "2026-11-22T05:00:00Z",
        drain_backoff_expire: zero,
      },
    ];
    assert.equal(res.stdout, `${JSON.stringify(want, null, 4)}\n`);
  });

  it("prints the server's message on stderr with a non-zero exit for bad input", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["add", "unreachable", "qemu", "300.0.0.1"], /kintsugi: invalid IP address: "300\.0\.0\.1" \(INVALID_ADDRESS\)/],
      [["add", "unreachable", "hp", "10.0.0.3"], /repair procedure not found for machine type "hp" \(REPAIR_PROCEDURE_NOT_FOUND\)/],
      [["add", "reboot", "qemu", "10.0.0.3"], /repair operation "reboot" not found .*\(REPAIR_OPERATION_NOT_FOUND\)/],
      [["delete", "77"], /repair entry 77 not found \(NOT_FOUND\)/],
      [["delete", "x"], /invalid index "x".*\(INVALID_INDEX\)/],
    ];
    for (const [args, pattern] of cases) {
      const res = await cli(...args);
      assert.equal(res.code, 1, args.join(" "));
      assert.equal(res.stdout, "");
      assert.match(res.stderr, pattern);
    }
    assert.equal(JSON.parse((await cli("list")).stdout).length, 2, "nothing was added");
  });

  it("rejects a missing argument with usage help and exit code 1", async () => {
    const res = await cli("add", "unreachable");
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /missing required argument 'MACHINE_TYPE'/);
  });

  it("disables, reports and enables the queue", async () => {
    assert.deepEqual(await cli("is-enabled"), { code: 0, stdout: "true\n", stderr: "" });
    assert.equal((await cli("disable")).code, 0);
    assert.deepEqual(await cli("is-enabled"), { code: 0, stdout: "false\n", stderr: "" });
    assert.equal((await cli("enable")).code, 0);
    assert.deepEqual(await cli("is-enabled"), { code: 0, stdout: "true\n", stderr: "" });
  });

  it("resets back-off", async () => {
    await setStatus(2, "processing", 3);
    const backingOff = JSON.parse((await cli("list")).stdout)[1];
    assert.deepEqual(
      Object.keys(backingOff),
      [
        "index",
        "address",
        "nodename",
        "serial",
        "machine_type",
        "operation",
        "status",
        "step",
        "step_status",
        "deleted",
        "last_transition_time",
        "drain_backoff_count",
        "drain_backoff_expire",
      ],
      "RepairQueueEntry's field order, drain_backoff_count included",
    );
    assert.equal(backingOff.drain_backoff_count, 3);
    assert.deepEqual(await cli("reset-backoff"), { code: 0, stdout: "", stderr: "" });
    const entry = JSON.parse((await cli("list")).stdout)[1];
    assert.equal(entry.drain_backoff_count, undefined, "omitted when 0, as ckecli");
    assert.equal(entry.drain_backoff_expire, "0001-01-01T00:00:00Z");
  });

  it("deletes one entry, then the finished ones, then the unfinished ones, printing indexes", async () => {
    await cli("add", "unreachable", "qemu", "10.0.0.3");
    await cli("add", "unreachable", "qemu", "10.0.0.4");
    await setStatus(1, "succeeded");
    await setStatus(3, "failed");
    assert.deepEqual(await cli("delete", "4"), { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await cli("delete-finished"), { code: 0, stdout: "1\n3\n", stderr: "" });
    assert.deepEqual(await cli("delete-unfinished"), { code: 0, stdout: "2\n", stderr: "" });
    const listed = JSON.parse((await cli("list")).stdout) as Array<{ index: string; deleted: boolean }>;
    assert.deepEqual(
      listed.map((e) => [e.index, e.deleted]),
      [
        ["1", true],
        ["2", true],
        ["3", true],
        ["4", true],
      ],
    );
  });

  it("a failed entry: list keeps ckecli's JSON on stdout, and says on stderr why each failed entry failed, escaped", async () => {
    await cli("add", "unreachable", "qemu", "10.0.0.5");
    // The server keeps the reason escaped (stderrTail); a raw control character here stands for any server's words.
    const why = "step 1: repair command failed: exit code 2; stderr: BMC \x1b[31mgone";
    await withSideStore(k, (side) => side.transition(5, { status: "failed" }, why));
    const res = await cli("list");
    assert.equal(res.code, 0);
    const failed = (JSON.parse(res.stdout) as Array<Record<string, unknown>>).find((e) => e["index"] === "5");
    assert.deepEqual(
      Object.keys(failed ?? {}),
      ["index", "address", "nodename", "machine_type", "operation", "status", "step", "step_status", "deleted", "last_transition_time", "drain_backoff_expire"],
      "ckecli's RepairQueueEntry, nothing added",
    );
    assert.equal(failed?.["status"], "failed");
    assert.equal(
      res.stderr,
      "kintsugi: entry 3 (10.0.0.3) failed: seed\n" +
        "kintsugi: entry 5 (10.0.0.5) failed: step 1: repair command failed: exit code 2; stderr: BMC \\x1b[31mgone\n",
    );
  });

  it("says which server it cannot reach", async () => {
    const port = await closedPort();
    const res = await runCliInProcess(["--server", `http://127.0.0.1:${port}`, "repair-queue", "list"]);
    assert.equal(res.code, 1);
    assert.equal(res.stderr, `kintsugi: cannot reach http://127.0.0.1:${port}/graphql: ECONNREFUSED\n`);
  });
});
