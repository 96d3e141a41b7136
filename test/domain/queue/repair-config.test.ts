import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findRepairOperation } from "../../../src/domain/queue/repair-config.js";
import { TEST_REPAIR_CONFIG } from "../../support/fixtures.js";

describe("findRepairOperation (CKE's lookup)", () => {
  const cases: Array<{
    name: string;
    type: string;
    operation: string;
    want: { procedure: number; operation: string } | "procedure-not-found" | "operation-not-found";
  }> = [
    { name: "first procedure, first operation", type: "qemu", operation: "unreachable", want: { procedure: 0, operation: "unreachable" } },
    { name: "first procedure, second operation", type: "qemu", operation: "unhealthy", want: { procedure: 0, operation: "unhealthy" } },
    { name: "a type listed second in the procedure", type: "ipmi-2.0", operation: "unhealthy", want: { procedure: 0, operation: "unhealthy" } },
    { name: "a type only a later procedure lists", type: "dell", operation: "later-only", want: { procedure: 1, operation: "later-only" } },
    { name: "later procedures are not tried for the operation", type: "ipmi-2.0", operation: "later-only", want: "operation-not-found" },
    { name: "unknown type", type: "hp", operation: "unreachable", want: "procedure-not-found" },
    { name: "type names are case-sensitive", type: "QEMU", operation: "unreachable", want: "procedure-not-found" },
    { name: "operation names are case-sensitive", type: "qemu", operation: "UNREACHABLE", want: "operation-not-found" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = findRepairOperation(TEST_REPAIR_CONFIG, c.type, c.operation);
      if (typeof c.want === "string") {
        assert.equal(got.ok ? "found" : got.reason, c.want);
      } else {
        assert.ok(got.ok);
        assert.equal(got.procedure, TEST_REPAIR_CONFIG.repairProcedures[c.want.procedure]);
        assert.equal(got.operation.operation, c.want.operation);
      }
    });
  }
});
