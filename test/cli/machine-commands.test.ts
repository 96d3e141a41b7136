import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { holdEnd, holdsTable } from "../../src/cli/machine-commands.js";
import type { MachineHoldFieldsFragment } from "../../src/cli/generated/operations.js";
import { NOW } from "../support/fixtures.js";

describe("holdEnd: when `machine hold --until TIME` ends", () => {
  const cases: Array<[string, string, string | RegExp]> = [
    ["an RFC 3339 time, as written", "2026-11-23T18:00:00Z", "2026-11-23T18:00:00Z"],
    ["an RFC 3339 time with an offset", "2026-11-23T18:00:00+09:00", "2026-11-23T18:00:00+09:00"],
    ["a duration from now", "2h", new Date(NOW + 7_200_000).toISOString()],
    ["a compound duration", "1h30m", new Date(NOW + 5_400_000).toISOString()],
    ["a plain number of seconds", "90", new Date(NOW + 90_000).toISOString()],
    ["a date that is not one", "2026-13-45T99:00:00Z", /invalid time "2026-13-45T99:00:00Z" \(RFC 3339/],
    ["words", "tomorrow", /invalid time "tomorrow": an RFC 3339 time .* or a duration from now/],
    ["a negative duration", "-2h", /invalid time "-2h"/],
  ];
  for (const [name, text, want] of cases) {
    it(name, () => {
      if (typeof want === "string") assert.equal(holdEnd(text, NOW), want);
      else assert.throws(() => holdEnd(text, NOW), want);
    });
  }
});

describe("holdsTable: the holds as `machine holds` prints them", () => {
  const hold = (over: Partial<MachineHoldFieldsFragment>): MachineHoldFieldsFragment => ({
    address: "10.0.0.1",
    reason: "firmware",
    setBy: "alice",
    setAt: "2026-11-23T10:00:00Z",
    until: null,
    source: "API" as MachineHoldFieldsFragment["source"],
    ...over,
  });
  it("says so when no machine is held", () => assert.equal(holdsTable([]), "no machine is held\n"));
  it("aligns the columns, shows absent times as -, the source in lower case, and escapes control characters", () => {
    const table = holdsTable([
      hold({ until: "2026-11-23T12:00:00Z", reason: "bell\x07 and \x1b[2J" }),
      hold({
        address: "fd00::1",
        setBy: "annotation kintsugi.cybozu.io/hold on Node n1",
        setAt: null,
        source: "ANNOTATION" as MachineHoldFieldsFragment["source"],
      }),
    ]);
    assert.equal(
      table,
      [
        "ADDRESS   SOURCE      SET BY                                         SET AT                UNTIL                 REASON",
        "10.0.0.1  api         alice                                          2026-11-23T10:00:00Z  2026-11-23T12:00:00Z  bell\\x07 and \\x1b[2J",
        "fd00::1   annotation  annotation kintsugi.cybozu.io/hold on Node n1  -                     -                     firmware",
        "",
      ].join("\n"),
    );
  });
});
