import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { MAX_E2E_FILES_IN_PROCESS, MAX_FILES_IN_PROCESS, ownProcess, planProcesses } from "../../scripts/test-processes.mjs";

// Which test files share a process in a run of scripts/run-tests.mjs: a wrong plan would put a server's file after
// a folder's unit tests (the run's long pole) or run a file that needs a process of its own beside others.
describe("planProcesses", () => {
  const cases: ReadonlyArray<{ name: string; files: string[]; plan: Array<{ folder?: string; e2e?: boolean; files: string[] }> }> = [
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
      name: "files that start programs keep a process each, end-to-end files among them",
      files: [
        "test/runner/crash-recovery.e2e.test.ts",
        "test/runner/worker-selection.e2e.test.ts",
        "test/cli/serve-cli.test.ts",
        "test/cli/binary-smoke.test.ts",
      ],
      plan: [
        { files: ["test/runner/crash-recovery.e2e.test.ts"] },
        { files: ["test/runner/worker-selection.e2e.test.ts"] },
        { files: ["test/cli/serve-cli.test.ts"] },
        { files: ["test/cli/binary-smoke.test.ts"] },
      ],
    },
    {
      name: "a folder's in-process end-to-end files share a process apart from its unit files",
      files: ["test/runner/a.test.ts", "test/runner/x.e2e.test.ts", "test/runner/b.test.ts", "test/runner/y.e2e.test.ts"],
      plan: [
        { folder: "test/runner", files: ["test/runner/a.test.ts", "test/runner/b.test.ts"] },
        { folder: "test/runner", e2e: true, files: ["test/runner/x.e2e.test.ts", "test/runner/y.e2e.test.ts"] },
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

  it(`puts at most ${MAX_E2E_FILES_IN_PROCESS} end-to-end files in one process`, () => {
    const files = Array.from({ length: MAX_E2E_FILES_IN_PROCESS + 1 }, (_, i) => `test/graphql/f${i}.e2e.test.ts`);
    assert.deepEqual(
      planProcesses(files).map((p) => p.files.length),
      [MAX_E2E_FILES_IN_PROCESS, 1],
    );
  });

  const OWN: ReadonlyArray<[string, boolean]> = [
    ["test/ha/failover.e2e.test.ts", true],
    ["test/runner/crash-recovery.e2e.test.ts", true],
    ["test/graphql/replay-worker.e2e.test.ts", true],
    ["test/runner/drain.e2e.test.ts", false],
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

  // The end-to-end files that start programs are named in OWN_PROCESS: one added without its name would share a
  // process with in-process files, and its children's wall time would be theirs.
  it("every end-to-end file that starts kintsugi serve, the CLI's binary, etcd, a BMC simulator or the demo keeps a process of its own", () => {
    const e2e = (readdirSync("test", { recursive: true }) as string[]).filter((f) => f.endsWith(".e2e.test.ts")).map((f) => join("test", f));
    assert.ok(e2e.length > 30, `found ${e2e.length} end-to-end files`);
    const starting = e2e.filter((f) => /\b(serveProcess|startTestEtcd|startIpmiSim|startDemo|runCli|startCli)\(/.test(readFileSync(f, "utf8")));
    assert.ok(starting.length >= 10, `found ${starting.length} that start programs`);
    assert.deepEqual(
      starting.filter((f) => !ownProcess(f)),
      [],
    );
  });
});
