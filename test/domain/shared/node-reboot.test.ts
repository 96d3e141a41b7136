import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { REBOOT_ANNOTATION, hasRebootMark, isCordonedForReboot, isRebootedByCke, type RebootFacts } from "../../../src/domain/shared/node-reboot.js";

const CORDONED_BY = "kintsugi.test/cordoned-by";
const mark = { [REBOOT_ANNOTATION]: "true" };

/** Per Node: whether it carries the mark, is rebooted by CKE (trigger), is cordoned for a reboot (control planes). */
const CASES: Array<{ name: string; node: RebootFacts; want: [boolean, boolean, boolean] }> = [
  { name: "no annotation", node: { unschedulable: false, annotations: {} }, want: [false, false, false] },
  { name: "cordoned by someone without the mark", node: { unschedulable: true, annotations: {} }, want: [false, false, false] },
  { name: "the mark, not cordoned (uncordoned by hand, say)", node: { unschedulable: false, annotations: mark }, want: [true, true, false] },
  { name: "the mark and cordoned: CKE reboots it", node: { unschedulable: true, annotations: mark }, want: [true, true, true] },
  {
    name: "the mark on a node kintsugi cordoned",
    node: { unschedulable: true, annotations: { ...mark, [CORDONED_BY]: "repair-entry-1" } },
    want: [true, false, false],
  },
  {
    name: 'the annotation with a value other than "true"',
    node: { unschedulable: true, annotations: { [REBOOT_ANNOTATION]: "false" } },
    want: [false, false, false],
  },
  { name: "an empty value", node: { unschedulable: true, annotations: { [REBOOT_ANNOTATION]: "" } }, want: [false, false, false] },
];

describe("CKE's reboot mark, as each rule reads it", () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual([hasRebootMark(c.node), isRebootedByCke(c.node, CORDONED_BY), isCordonedForReboot(c.node, CORDONED_BY)], c.want);
    });
  }
});
