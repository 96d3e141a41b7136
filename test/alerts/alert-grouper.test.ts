import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AlertGrouper } from "../../src/alerts/alert-grouper.js";
import type { Alert } from "../../src/domain/alerts/alert.js";
import { until } from "../support/until.js";

const succeeded = (i: number): Alert => ({
  kind: "succeeded",
  severity: "info",
  title: `repair succeeded: 10.0.0.${i}`,
  text: "healthy",
  fields: {},
  group: { key: "succeeded:repair succeeded", plural: "repairs succeeded", subject: `10.0.0.${i}` },
});
const held: Alert = { kind: "held", severity: "warning", title: "auto-repair holds back 1 machine: 1 in rack 2 rebooting", text: "", fields: {} };

describe("AlertGrouper (the grouping rules with a timer)", () => {
  it("posts alerts of one kind that come within the window as one message when it ends", async () => {
    const posted: Alert[] = [];
    const grouper = new AlertGrouper({ windowMs: 200, post: (a) => void posted.push(a) });
    for (let i = 1; i <= 3; i++) grouper.add(succeeded(i));
    assert.equal(posted.length, 0, "nothing before the window ends");
    assert.equal(grouper.waiting, 3);
    await until(
      "the group is posted",
      () => posted.length,
      (n) => n > 0,
    );
    assert.deepEqual(
      posted.map((a) => a.title),
      ["3 repairs succeeded: 10.0.0.1, 10.0.0.2, 10.0.0.3"],
    );
    assert.equal(grouper.waiting, 0);
    grouper.close();
  });

  it("posts a lone alert as it is once the window has passed", async () => {
    const posted: Alert[] = [];
    const started = Date.now();
    const grouper = new AlertGrouper({ windowMs: 100, post: (a) => void posted.push(a) });
    grouper.add(succeeded(1));
    await until(
      "the alert is posted",
      () => posted.length,
      (n) => n > 0,
    );
    assert.ok(Date.now() - started >= 100, "not before its window ended");
    assert.deepEqual(posted, [succeeded(1)]);
    grouper.close();
  });

  it("posts what waits, then a hold, at once: a hold is never delayed", () => {
    const posted: Alert[] = [];
    const grouper = new AlertGrouper({ windowMs: 3_600_000, post: (a) => void posted.push(a) });
    grouper.add(succeeded(1));
    grouper.add(succeeded(2));
    grouper.add(held);
    assert.deepEqual(
      posted.map((a) => a.title),
      ["2 repairs succeeded: 10.0.0.1, 10.0.0.2", held.title],
    );
    grouper.close();
  });

  it("close() posts every waiting group at once, and later alerts go straight through", () => {
    const posted: Alert[] = [];
    const grouper = new AlertGrouper({ windowMs: 3_600_000, post: (a) => void posted.push(a) });
    grouper.add(succeeded(1));
    grouper.add(succeeded(2));
    grouper.close();
    assert.deepEqual(
      posted.map((a) => a.title),
      ["2 repairs succeeded: 10.0.0.1, 10.0.0.2"],
    );
    grouper.add(succeeded(3));
    assert.deepEqual(posted.at(-1), succeeded(3));
  });

  it("window 0 posts every alert at once, on its own", () => {
    const posted: Alert[] = [];
    const grouper = new AlertGrouper({ windowMs: 0, post: (a) => void posted.push(a) });
    grouper.add(succeeded(1));
    grouper.add(succeeded(2));
    assert.deepEqual(posted, [succeeded(1), succeeded(2)]);
    grouper.close();
  });
});
