// A node:test reporter that records each test file's wall time, for scripts/run-tests.mjs's report of where the
// suite's time goes. With --test, node runs each file in a process of its own as a test named by the file's path; its
// test:complete event carries the file's wall time (the process's start, tsx's loading and every test in it). The
// reporter writes one line of JSON: { "<file>": { "ms": <wall time>, "failed": <bool> } }.
export default async function* testTimes(source) {
  const files = {};
  for await (const event of source) {
    if (event.type !== "test:complete") continue;
    const { file, name, details, nesting } = event.data;
    if (nesting !== 0 || file === undefined || name !== file) continue;
    files[file] = { ms: Math.round(details.duration_ms), failed: details.passed === false };
  }
  yield `${JSON.stringify(files)}\n`;
}
