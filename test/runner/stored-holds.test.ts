import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { StoredMachineHold } from "../../src/domain/holds/machine-holds.js";
import { RUNNER_ACTOR } from "../../src/domain/queue/repair-history.js";
import { earlierWake, holdsForPass } from "../../src/runner/stored-holds.js";
import { logTo } from "../../src/support/log.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import type { HoldChange, KintsugiStore, MachineHoldPort } from "../../src/store/store-port.js";
import { NOW } from "../support/fixtures.js";
import { tempDir } from "../support/temp-dir.js";

const HOUR = 3_600_000;
const hold = (address: string, until: number | null): StoredMachineHold => ({ address, reason: `r ${address}`, setBy: "alice", setAt: NOW - HOUR, until });

describe("holdsForPass: the stored holds a repair pass decides with (a real SQLite store)", () => {
  let dir: ReturnType<typeof tempDir>;
  let store: KintsugiStore;
  const warnings: string[] = [];
  const log = logTo((level, message) => void (level === "warn" && warnings.push(message)));
  const put = (...holds: StoredMachineHold[]) => Promise.all(holds.map((h) => store.holds.hold(() => ({ ok: true, hold: h }), "alice")));

  beforeEach(async () => {
    dir = tempDir();
    store = await openSqliteStore({ path: join(dir.path, "k.db") });
    warnings.length = 0;
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("without a hold port: none, and nothing ends", async () => {
    assert.deepEqual(await holdsForPass(undefined, NOW, log), { stored: [], nextEnd: null });
  });

  it("removes the holds ended by now in one write announced as expired by the runner, and says when the next ends", async () => {
    await put(hold("10.0.0.1", NOW), hold("10.0.0.2", NOW - 1), hold("10.0.0.3", NOW + 2 * HOUR), hold("10.0.0.4", NOW + HOUR), hold("10.0.0.5", null));
    const commits: Array<readonly HoldChange[]> = [];
    store.onCommit((c) => commits.push(c.holds ?? []));
    const pass = await holdsForPass(store.holds, NOW, log);
    assert.deepEqual(
      pass.stored.map((h) => h.address),
      ["10.0.0.3", "10.0.0.4", "10.0.0.5"],
    );
    assert.equal(pass.nextEnd, NOW + HOUR, "the earliest end of a hold still in force");
    assert.deepEqual(commits, [
      [
        { kind: "expired", hold: hold("10.0.0.1", NOW), actor: RUNNER_ACTOR },
        { kind: "expired", hold: hold("10.0.0.2", NOW - 1), actor: RUNNER_ACTOR },
      ],
    ]);
    assert.deepEqual(
      store.holds.list().map((h) => h.address),
      ["10.0.0.3", "10.0.0.4", "10.0.0.5"],
    );
  });

  it("writes nothing when no hold has ended, and a hold without an end never wakes the runner", async () => {
    await put(hold("10.0.0.5", null));
    const commits: unknown[] = [];
    store.onCommit((c) => commits.push(c));
    assert.deepEqual(await holdsForPass(store.holds, NOW, log), { stored: [hold("10.0.0.5", null)], nextEnd: null });
    assert.deepEqual(commits, []);
  });

  it("goes on when the removal fails, logging it: the ended holds are still listed (activeHolds leaves them out)", async () => {
    await put(hold("10.0.0.1", NOW), hold("10.0.0.2", NOW + HOUR));
    const failing: MachineHoldPort = { ...store.holds, list: () => store.holds.list(), removeExpired: () => Promise.reject(new Error("disk full")) };
    const pass = await holdsForPass(failing, NOW, log);
    assert.deepEqual([pass.stored.length, pass.nextEnd], [2, NOW + HOUR]);
    assert.deepEqual(warnings, ["removing expired machine holds failed; they no longer hold, and the next pass removes them"]);
  });
});

describe("earlierWake", () => {
  const cases: Array<[string, number | null, number | null, number | null]> = [
    ["neither", null, null, null],
    ["only the plan's", 5, null, 5],
    ["only a hold's end", null, 7, 7],
    ["the earlier of both", 9, 7, 7],
  ];
  for (const [name, a, b, want] of cases) it(name, () => assert.equal(earlierWake(a, b), want));
});
