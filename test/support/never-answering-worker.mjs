// A replay worker that never answers and never yields (test/graphql/replay-threads.test.ts): it counts in the shared
// buffer its job carries for as long as it runs, so the test can tell a terminated thread from one left spinning.
import { workerData } from "node:worker_threads";

const beats = new Int32Array(workerData.job.beats);
for (;;) Atomics.add(beats, 0, 1);
