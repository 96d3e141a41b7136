import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  attemptStartNote,
  COMMAND_CONTEXT_VARIABLES,
  commandEnvironment,
  MAX_CONTEXT_VALUE_LENGTH,
  operationIdFor,
} from "../../../src/domain/queue/command-context.js";
import { entry } from "./repair-decision-support.js";

describe("commandEnvironment", () => {
  const noBmc = { KINTSUGI_BMC_ADDRESS: "", KINTSUGI_BMC_TYPE: "" };
  const cases: Array<
    [
      string,
      Parameters<typeof commandEnvironment>[0],
      Parameters<typeof commandEnvironment>[1],
      Record<string, string>,
      Parameters<typeof commandEnvironment>[2]?,
    ]
  > = [
    [
      "a repair command's retry: 1-based step, attempt and id",
      { index: 12, step: 1, serial: "SN-1", nodename: "node-a" },
      { attempt: 2, operationId: "12-2-2-abcd0123" },
      {
        KINTSUGI_ENTRY_INDEX: "12",
        KINTSUGI_STEP: "2",
        KINTSUGI_ATTEMPT: "2",
        KINTSUGI_OPERATION_ID: "12-2-2-abcd0123",
        KINTSUGI_SERIAL: "SN-1",
        KINTSUGI_NODE: "node-a",
        ...noBmc,
      },
    ],
    [
      "unknown serial and a machine that is not a node: empty strings",
      { index: 3, step: 0, serial: null, nodename: "" },
      { attempt: 1, operationId: "3-1-1-00000000" },
      {
        KINTSUGI_ENTRY_INDEX: "3",
        KINTSUGI_STEP: "1",
        KINTSUGI_ATTEMPT: "1",
        KINTSUGI_OPERATION_ID: "3-1-1-00000000",
        KINTSUGI_SERIAL: "",
        KINTSUGI_NODE: "",
        ...noBmc,
      },
    ],
    [
      "a health check (no recorded attempt): empty attempt and id",
      { index: 5, step: 2, serial: "S", nodename: "n" },
      null,
      { KINTSUGI_ENTRY_INDEX: "5", KINTSUGI_STEP: "3", KINTSUGI_ATTEMPT: "", KINTSUGI_OPERATION_ID: "", KINTSUGI_SERIAL: "S", KINTSUGI_NODE: "n", ...noBmc },
    ],
    [
      "a serial with a NUL byte (spawn would refuse the command) is passed empty, the command still runs",
      { index: 6, step: 0, serial: "SN\u0000-7", nodename: "n" },
      { attempt: 1, operationId: "6-1-1-00000000" },
      {
        KINTSUGI_ENTRY_INDEX: "6",
        KINTSUGI_STEP: "1",
        KINTSUGI_ATTEMPT: "1",
        KINTSUGI_OPERATION_ID: "6-1-1-00000000",
        KINTSUGI_SERIAL: "",
        KINTSUGI_NODE: "n",
        ...noBmc,
      },
    ],
    [
      "a node name with a newline (a forged log line) is passed empty",
      { index: 7, step: 0, serial: "S", nodename: "n\nkintsugi: fake" },
      null,
      { KINTSUGI_ENTRY_INDEX: "7", KINTSUGI_STEP: "1", KINTSUGI_ATTEMPT: "", KINTSUGI_OPERATION_ID: "", KINTSUGI_SERIAL: "S", KINTSUGI_NODE: "", ...noBmc },
    ],
    [
      `a serial of ${MAX_CONTEXT_VALUE_LENGTH} characters is kept, one longer is passed empty`,
      { index: 8, step: 0, serial: "s".repeat(MAX_CONTEXT_VALUE_LENGTH), nodename: "n".repeat(MAX_CONTEXT_VALUE_LENGTH + 1) },
      null,
      {
        KINTSUGI_ENTRY_INDEX: "8",
        KINTSUGI_STEP: "1",
        KINTSUGI_ATTEMPT: "",
        KINTSUGI_OPERATION_ID: "",
        KINTSUGI_SERIAL: "s".repeat(MAX_CONTEXT_VALUE_LENGTH),
        KINTSUGI_NODE: "",
        ...noBmc,
      },
    ],
    [
      "a machine whose BMC sabakan named: its address and type",
      { index: 9, step: 0, serial: "S", nodename: "n" },
      { attempt: 1, operationId: "9-1-1-00000000" },
      {
        KINTSUGI_ENTRY_INDEX: "9",
        KINTSUGI_STEP: "1",
        KINTSUGI_ATTEMPT: "1",
        KINTSUGI_OPERATION_ID: "9-1-1-00000000",
        KINTSUGI_SERIAL: "S",
        KINTSUGI_NODE: "n",
        KINTSUGI_BMC_ADDRESS: "10.72.1.5",
        KINTSUGI_BMC_TYPE: "IPMI-2.0",
      },
      { address: "10.72.1.5", type: "IPMI-2.0" },
    ],
  ];
  for (const [name, e, identity, want, bmc] of cases) {
    it(name, () => {
      const env = commandEnvironment(e, identity, bmc ?? null);
      assert.deepEqual(env, want);
      assert.deepEqual(Object.keys(env).sort(), [...COMMAND_CONTEXT_VARIABLES].sort(), "every documented variable, always");
    });
  }
});

describe("operationIdFor", () => {
  const cases: Array<[string, { index: number; step: number }, number, string, string]> = [
    ["first attempt of the first step", { index: 1, step: 0 }, 1, "0a1b2c3d", "1-1-1-0a1b2c3d"],
    ["third attempt of step 4", { index: 907, step: 3 }, 3, "ffffffff", "907-4-3-ffffffff"],
  ];
  for (const [name, e, attempt, suffix, want] of cases) it(name, () => assert.equal(operationIdFor(e, attempt, suffix), want));
});

describe("attemptStartNote", () => {
  it("is a note that leaves the entry as it is and names the command, attempt and operation id", () => {
    const watching = entry(4, { status: "processing", stepStatus: "watching", step: 1 });
    const note = attemptStartNote(watching, "repair command", { attempt: 2, operationId: "4-2-2-12345678" });
    assert.equal(note.kind, "note");
    assert.equal(note.after, watching);
    assert.equal(note.reason, "step 2: starting the repair command, attempt 2 (operation id 4-2-2-12345678)");
  });
});
