import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_FILES_IN_PROCESS, ownProcess, planProcesses } from "../../scripts/test-processes.mjs";

// Which test files share a process in a run of scripts/run-tests.mjs: a wrong plan would put a server's file after
// a folder's unit tests (the run's long pole) or run a file that needs a process of its own beside others.
describe("planProcesses", () => {
  const cases: ReadonlyArray<{ name: string; files: string[]; plan: Array<{ folder?: string; files: string[] }> }> = [
    {
      name: "the unit files of a folder share a process, placed where its first file was",
      files: ["test/domain/queue/a.test.ts", "test/sim/sweep.test.ts", "test/domain/queue/b.test.ts"],
      plan: [{ folder: "test/domain/queue", files: ["test/domain/queue/a.test.ts", "test/domain/queue/b.test.ts"] }, { files: ["test/sim/sweep.test.ts"] }],
    },
    {
      name: "a folder's only unit file runs as a file of its own",
      files: ["test/config/a.test.ts", "test/auth/b.test.ts"],
      plan: [{ files: ["test/config/a.test.ts"] }, { files: ["test/auth/b.test.ts"] }],
    },
    {
      name: "end-to-end files and files that start programs keep a process each",
      files: ["test/runner/x.e2e.test.ts", "test/runner/y.e2e.test.ts", "test/cli/serve-cli.test.ts", "test/cli/binary-smoke.test.ts"],
      plan: [
        { files: ["test/runner/x.e2e.test.ts"] },
        { files: ["test/runner/y.e2e.test.ts"] },
        { files: ["test/cli/serve-cli.test.ts"] },
        { files: ["test/cli/binary-smoke.test.ts"] },
      ],
    },
    {
      name: "a subfolder is a folder of its own",
      files: ["test/store/a.test.ts", "test/store/core/b.test.ts", "test/store/c.test.ts", "test/store/core/d.test.ts"],
      plan: [
        { folder: "test/store", files: ["test/store/a.test.ts", "test/store/c.test.ts"] },
        { folder: "test/store/core", files: ["test/store/core/b.test.ts", "test/store/core/d.test.ts"] },
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(planProcesses(c.files), c.plan));

  it("runs every file alone when asked (KINTSUGI_TEST_PROCESS_PER_FILE)", () => {
    const files = ["test/domain/queue/a.test.ts", "test/domain/queue/b.test.ts"];
    assert.deepEqual(planProcesses(files, true), [{ files: [files[0]] }, { files: [files[1]] }]);
  });

  it(`puts at most ${MAX_FILES_IN_PROCESS} files in one process`, () => {
    const files = Array.from({ length: MAX_FILES_IN_PROCESS + 3 }, (_, i) => `test/domain/cluster/f${String(i).padStart(2, "0")}.test.ts`);
    assert.deepEqual(
      planProcesses(files).map((p) => p.files.length),
      [MAX_FILES_IN_PROCESS, 3],
    );
  });

  const OWN: ReadonlyArray<[string, boolean]> = [
    ["test/ha/failover.e2e.test.ts", true],
    ["test/faults/faults.e2e.test.ts", true],
    ["test/browser/status-page.test.ts", true],
    ["test/deploy/systemd-unit.test.ts", true],
    ["test/store/conformance/etcd.test.ts", true],
    ["test/cli/db-copy-cli.test.ts", true],
    ["test/adapters/command-spawner.test.ts", true],
    ["test/domain/queue/repair-decision.test.ts", false],
    ["test/graphql/operation-cost.test.ts", false],
    ["test/cli/repair-queue-cli.test.ts", false],
  ];
  for (const [file, own] of OWN) it(`${file} ${own ? "keeps a process of its own" : "may share one"}`, () => assert.equal(ownProcess(file), own));
});
