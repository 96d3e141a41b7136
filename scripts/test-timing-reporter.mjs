// A node:test reporter that records each test file's wall time, for scripts/run-tests.mjs's report of where the
// suite's time goes, and every failed test with its error, so that the end of a run says what failed even where only
// the last part of its output is kept (CI's log). With --test, node runs each file in a process of its own as a test
// named by the file's path; its test:complete event carries the file's wall time (the process's start, the loading and
// every test in it); in a process of several files (scripts/test-processes.mjs), each file's suite carries its time
// in the process, noted `in` that process. The reporter writes one line of JSON:
// { "files": { "<file>": { "ms": <wall time>, "failed": <bool>, "in"?: <process> } }, "failures": [{ "file", "name", "error" }] }.
const ERROR_CHARS = 1500;

/** The error's message and the start of its stack, with the assertion's cause where node wrapped it. */
function describe(error) {
  if (error === undefined || error === null) return "(no error given)";
  const inner = error.code === "ERR_TEST_FAILURE" && error.cause !== undefined ? error.cause : error;
  const text = inner instanceof Error ? (inner.stack ?? `${inner.name}: ${inner.message}`) : String(inner);
  return text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}...` : text;
}

/** A suite of a process of several files (scripts/test-processes.mjs) is named by its file's path. */
const isTestFile = (name) => /^test\/.*\.test\.ts$/.test(name);

export default async function* testTimes(source) {
  const files = {};
  const failures = [];
  for await (const event of source) {
    const { file, name, details, nesting } = event.data;
    if (event.type === "test:fail") {
      // A file's own test and a suite fail when one of theirs does; the leaf says what failed (and where: its file is
      // where it is defined, also in a process of several files).
      if (details.error?.failureType === "subtestsFailed") continue;
      failures.push({ file: file ?? "(unknown file)", name, error: describe(details.error) });
    }
    if (event.type !== "test:complete" || file === undefined || nesting !== 0) continue;
    const time = { ms: Math.round(details.duration_ms), failed: details.passed === false };
    if (name === file) files[file] = time;
    // A file of a process of several: its time in the process, not counted again in the total.
    else if (isTestFile(name)) files[name] = { ...time, in: file };
  }
  yield `${JSON.stringify({ files, failures })}\n`;
}
