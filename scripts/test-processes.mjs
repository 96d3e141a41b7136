// Which test files share a process in a run of scripts/run-tests.mjs (a full run, or the files named). Node 20's
// --test starts a process for each file; a file of unit tests spends most of its CPU starting node and loading its
// imports, not testing (the 25 files of test/domain/queue: 6.5 s of CPU in 25 processes, 1.5 s in one). So the files
// that test in-process run a folder at a time in one process (at most MAX_FILES_IN_PROCESS files each, so that none
// becomes the run's long pole), each file inside a suite named by its path; so do a folder's end-to-end files that
// run kintsugi in-process (its API, runner and store over test servers), at most MAX_E2E_FILES_IN_PROCESS to a
// process, apart from its unit files: each loads the whole server, about 1 s of CPU, and four runner files took 14.6 s
// of CPU in four processes and 7.0 s in one. The files whose time is their own processes' and servers' keep a
// process of their own and run beside the others. KINTSUGI_TEST_PROCESS_PER_FILE=1 runs every file alone.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { TEST_BUILD, builtPath } from "./build-tests.mjs";

/** Where a process of several files names the file whose tests run (see test/support/fake-kube-api-calls.ts). */
export const SOURCE_ENV = "KINTSUGI_TEST_SOURCE";

/** At most this many files in one process: about 10-20 s of a folder's unit tests on a loaded 2-core machine. */
export const MAX_FILES_IN_PROCESS = 16;
/** At most this many in-process end-to-end files in one process: about 20-50 s on a loaded 2-core machine. */
export const MAX_E2E_FILES_IN_PROCESS = 4;

/**
 * The files that keep a process of their own: the end-to-end files that start a real `kintsugi serve`, etcd or a BMC
 * simulator (test/support-tests/test-processes.test.ts finds any not named here), the folders whose every file is one (fault injection, failover, the demo, the simulator's long sweeps, the shipped
 * files run as an operator would), and the files that start programs of their own (the CLI's binary, commands), whose
 * wall time is their children's and is better spent beside other files than after them.
 */
const OWN_PROCESS = [
  // End-to-end files that start the real binary (kintsugi serve), etcd or a BMC simulator.
  /^test\/adapters\/hostile-kube-api\.e2e\.test\.ts$/,
  /^test\/graphql\/(cost-at-size|replay-worker)\.e2e\.test\.ts$/,
  /^test\/runner\/(control-planes-yield|crash-recovery|dependency-outage-log|diagnostics|health-at-every-step|health-check-reboot|worker-selection)\.e2e\.test\.ts$/,
  /^test\/store\/upgrade\/serve-conversion\.e2e\.test\.ts$/,
  /^test\/(ha|faults|browser|demo|sim|deploy|docs)\//,
  /^test\/cli\/(serve|launch|db-|binary|bundle|cli-code|cli-modules|completion|token|tls|secrets|watch|start-refusals|unreachable|cluster-adopt)/,
  /^test\/adapters\/command-(runner|launcher|spawner)\.test\.ts$/,
  /^test\/store\/(sqlite\/database-lock|kv\/open-sqlite-kv|kv\/convert-sqlite-tables|conformance\/)/,
  /^test\/alerts\/alert-bridge/,
  /^test\/architecture\/server-modules\.test\.ts$/,
];

/** An end-to-end file: one that shares a process shares it with its folder's end-to-end files only. */
const E2E = /\.e2e\.test\.ts$/;

/** Whether `file` (test/....test.ts) runs in a process of its own. */
export const ownProcess = (file) => OWN_PROCESS.some((pattern) => pattern.test(file));

/** Set: every file runs in a process of its own (to tell whether a failure comes from sharing one). */
export const PROCESS_PER_FILE_ENV = "KINTSUGI_TEST_PROCESS_PER_FILE";

/**
 * The processes of a run, in `files`' order: a file of its own, or the in-process files of one folder (in chunks of
 * MAX_FILES_IN_PROCESS; its end-to-end files apart, `e2e`, in chunks of MAX_E2E_FILES_IN_PROCESS), placed where the
 * first of them was; every file alone when `alone`.
 */
export function planProcesses(files, alone = false) {
  const plan = [];
  const open = new Map();
  for (const file of files) {
    if (alone || ownProcess(file)) {
      plan.push({ files: [file] });
      continue;
    }
    const folder = dirname(file);
    const e2e = E2E.test(file);
    const key = `${folder}${e2e ? " e2e" : ""}`;
    let group = open.get(key);
    if (group === undefined || group.files.length >= (e2e ? MAX_E2E_FILES_IN_PROCESS : MAX_FILES_IN_PROCESS)) {
      group = e2e ? { folder, e2e, files: [] } : { folder, files: [] };
      open.set(key, group);
      plan.push(group);
    }
    group.files.push(file);
  }
  return plan.map((p) => (p.files.length === 1 ? { files: p.files } : p));
}

/**
 * Writes the entry of a process that runs `files` one after the other, each inside a suite named by its path, and
 * returns its path: .test-build/.together/<folder>/<n>.test.js (e2e-<n>.test.js for end-to-end files).
 */
export function writeTogetherEntry(folder, n, files, e2e = false) {
  const entry = join(TEST_BUILD, ".together", folder, `${e2e ? "e2e-" : ""}${n}.test.js`);
  mkdirSync(dirname(entry), { recursive: true });
  const lines = ['import { before, describe } from "node:test";'];
  for (const file of files) {
    const [name, url] = [JSON.stringify(file), JSON.stringify(pathToFileURL(builtPath(file)).href)];
    // The suites run one after the other: before each file's tests, its name for test/support/fake-kube-api-calls.ts.
    lines.push(`describe(${name}, async () => { before(() => { process.env.${SOURCE_ENV} = ${name}; }); await import(${url}); });`);
  }
  writeFileSync(entry, `${lines.join("\n")}\n`);
  return entry;
}

/** The label of a process of several files in the time report. */
export const togetherLabel = (folder, n, count, e2e = false) => `${folder}/ (${count} ${e2e ? "end-to-end " : ""}files in one process, #${n})`;
