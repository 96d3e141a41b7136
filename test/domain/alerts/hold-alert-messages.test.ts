import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Alert } from "../../../src/domain/alerts/alert.js";
import { alertForHoldEvent, type MachineHoldEventPayload } from "../../../src/domain/alerts/hold-alert-messages.js";

const HOLD = { address: "10.0.0.1", reason: "firmware test", setBy: "alice", setAt: "2026-11-23T10:00:00Z", until: "2026-11-23T12:00:00Z" };
const event = (
  kind: MachineHoldEventPayload["kind"],
  over: Partial<MachineHoldEventPayload> = {},
  hold: Partial<MachineHoldEventPayload["hold"]> = {},
): MachineHoldEventPayload => ({
  kind,
  hold: { ...HOLD, ...hold },
  actor: "alice",
  ...over,
});

describe("alertForHoldEvent: the alert of each change of a stored hold", () => {
  const cases: Array<[string, MachineHoldEventPayload, Alert]> = [
    [
      "a hold set: held, a warning, the reason as text and until when",
      event("SET"),
      {
        kind: "held",
        severity: "warning",
        title: "machine held: 10.0.0.1 by alice",
        text: "firmware test",
        fields: { until: "2026-11-23T12:00:00Z" },
        group: { key: "held:by alice", plural: "machines held by alice", subject: "10.0.0.1" },
      },
    ],
    [
      "a hold without an end says so",
      event("SET", {}, { until: null }),
      {
        kind: "held",
        severity: "warning",
        title: "machine held: 10.0.0.1 by alice",
        text: "firmware test",
        fields: { until: "until released" },
        group: { key: "held:by alice", plural: "machines held by alice", subject: "10.0.0.1" },
      },
    ],
    [
      "a release names who released it and who had set it",
      event("RELEASED", { actor: "bob" }),
      {
        kind: "cleared",
        severity: "info",
        title: "machine released: 10.0.0.1 by bob",
        text: "firmware test",
        fields: { "held by": "alice", "held since": "2026-11-23T10:00:00Z" },
        group: { key: "cleared:released by bob", plural: "machines released by bob", subject: "10.0.0.1" },
      },
    ],
    [
      "an expiry says when the hold ended",
      event("EXPIRED", { actor: "kintsugi" }),
      {
        kind: "cleared",
        severity: "info",
        title: "machine hold ended: 10.0.0.1",
        text: "firmware test",
        fields: { "held by": "alice", "held since": "2026-11-23T10:00:00Z", ended: "2026-11-23T12:00:00Z" },
        group: { key: "cleared:hold ended", plural: "machine holds ended", subject: "10.0.0.1" },
      },
    ],
    [
      "control characters of the reason and the names are escaped (the chat formats escape their markup)",
      event("SET", { actor: "eve\x1b[2J" }, { reason: "line\nforged \u202e @channel <!here>" }),
      {
        kind: "held",
        severity: "warning",
        title: "machine held: 10.0.0.1 by eve\\x1b[2J",
        text: "line\\x0aforged \\u202e @channel <!here>",
        fields: { until: "2026-11-23T12:00:00Z" },
        group: { key: "held:by eve\\x1b[2J", plural: "machines held by eve\\x1b[2J", subject: "10.0.0.1" },
      },
    ],
  ];
  for (const [name, given, want] of cases) it(name, () => assert.deepEqual(alertForHoldEvent(given), want));
});
