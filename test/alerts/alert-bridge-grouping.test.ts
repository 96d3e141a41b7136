import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { until, withBridge } from "../support/alert-bridge-world.js";
import { runCliInProcess } from "../support/in-process-cli.js";

const addresses = (title: string) =>
  title
    .replace(/^[^:]*: /, "")
    .split(", ")
    .sort();

describe("kintsugi alerts: like events within the window as one message (the real binary, a real kintsugi, a local webhook)", () => {
  it("posts three repairs started and failed together as two messages, naming who requested them, and a later lone repair's on their own", () =>
    withBridge({ args: ["--group-window-seconds", "5"] }, async (w, r, b) => {
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      // Three slots (max_concurrent_repairs 3): the three start in one runner pass and fail at once.
      for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) await w.add("fail", a);
      await until("both grouped messages", () => r.messages.length >= 2, why);
      const [started, failed] = r.messages;
      assert.match(started?.title ?? "", /^3 repairs started: /, why());
      assert.deepEqual(addresses(started?.title ?? ""), ["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
      assert.equal(started?.kind, "started");
      assert.equal(started?.fields["count"], "3");
      assert.equal(started?.fields["requested by"], "anonymous", "the server's anonymous clients are admins named anonymous");
      assert.match(failed?.title ?? "", /^3 repairs failed: /, why());
      assert.deepEqual(addresses(failed?.title ?? ""), ["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
      assert.equal(failed?.severity, "critical");
      // Each failed for its own reason (its BMC's words): each is listed with it.
      assert.deepEqual(
        (failed?.text ?? "").split("\n").sort(),
        ["10.0.0.1", "10.0.0.2", "10.0.0.3"].map((a) => `${a}: step 1: repair command failed: exit code 3; stderr: BMC of ${a} does not answer`),
      );

      await w.add("fail", "10.0.0.9");
      await until("the lone repair's messages", () => r.messages.length >= 4, why);
      assert.deepEqual(r.titles().slice(2), ["repair started: 10.0.0.9", "repair failed: 10.0.0.9"]);
      assert.equal(r.messages.length, 4, why());
    }));

  it("posts what waits in a group when it stops: nothing is lost at shutdown", () =>
    withBridge({ args: ["--group-window-seconds", "3600"] }, async (w, r, b) => {
      await w.add("fail", "10.0.0.4");
      await until(
        "the bridge received the failure",
        () => b.stderr().includes("alert: repair failed: 10.0.0.4"),
        () => b.stderr(),
      );
      assert.deepEqual(r.messages, [], "both wait for their hour");
      assert.equal(await b.stop(), 0, b.stderr());
      assert.deepEqual(r.titles(), ["repair started: 10.0.0.4", "repair failed: 10.0.0.4"]);
    }));

  it("refuses a window that is not a number of seconds from 0 to 3600", async () => {
    for (const value of ["-1", "soon", "3601", "1e3"]) {
      const result = await runCliInProcess([
        "--server",
        "http://127.0.0.1:9",
        "alerts",
        "--webhook",
        "http://127.0.0.1:9/hook",
        "--group-window-seconds",
        value,
      ]);
      assert.notEqual(result.code, 0, value);
      assert.match(result.stderr, /--group-window-seconds <N>.*must be a number of seconds from 0 \(no grouping\) to 3600/, value);
    }
  });
});
