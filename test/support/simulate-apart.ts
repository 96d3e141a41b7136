import { Worker } from "node:worker_threads";
import type { SimOptions } from "../../src/sim/sim-options.js";
import type { SimReport } from "../../src/sim/sim-report.js";
import type { SimAnswer, SimRequest } from "./sim-worker.js";

// The simulator's sweeps (test/sim/) run their simulations in a worker thread of the test's process: node 20's test
// runner keeps an async hook in the test's thread that tracks every promise's destruction, so as to know which test
// a stray error belongs to, and the simulator, which runs the real runner, store and pollers, makes millions of
// promises: there it cost a sixth of the sweep's CPU (44.9 s against 37.0 s for the same 40 seeds run without it).
// The reports are the simulator's own, passed back as they are (structured clone: Maps stay Maps); a simulation
// that throws rejects with its error's message and stack.

const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./sim-worker.ts" : "./sim-worker.js", import.meta.url);

interface Pending {
  readonly resolve: (report: SimReport) => void;
  readonly reject: (err: Error) => void;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;

/** Fails every simulation still running: the worker died (its error) or exited. */
function gone(err: Error): void {
  worker = null;
  const waiting = [...pending.values()];
  pending.clear();
  for (const p of waiting) p.reject(err);
}

function startWorker(): Worker {
  // Run from source (tsx), the worker registers tsx itself: a worker does not run its parent's --import.
  const started = WORKER_URL.pathname.endsWith(".ts")
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`,
        {
          eval: true,
        },
      )
    : new Worker(WORKER_URL);
  started.on("message", (answer: SimAnswer) => {
    const p = pending.get(answer.id);
    if (p === undefined) return;
    pending.delete(answer.id);
    // Idle, the worker does not keep the test's process alive.
    if (pending.size === 0) started.unref();
    if ("report" in answer) return p.resolve(answer.report);
    const err = new Error(answer.error.message);
    err.stack = answer.error.stack;
    p.reject(err);
  });
  started.on("error", (err) => gone(err));
  started.on("exit", (code) => gone(new Error(`the simulator's worker thread exited (code ${code})`)));
  return started;
}

/** `simulate(options)` (src/sim/simulation.ts), run in this process's simulator worker thread. */
export function simulateApart(options: SimOptions): Promise<SimReport> {
  const running = (worker ??= startWorker());
  const id = nextId++;
  return new Promise<SimReport>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    running.ref();
    running.postMessage({ id, options } satisfies SimRequest);
  });
}
