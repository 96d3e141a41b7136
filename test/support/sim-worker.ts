import { parentPort } from "node:worker_threads";
import type { SimOptions } from "../../src/sim/sim-options.js";
import { simulate } from "../../src/sim/simulation.js";

// The worker of test/support/simulate-apart.ts: runs each simulation it is sent and answers with its report, or
// with the error it threw (message and stack), under the id it was sent with.

export interface SimRequest {
  readonly id: number;
  readonly options: SimOptions;
}

export type SimAnswer =
  | { readonly id: number; readonly report: Awaited<ReturnType<typeof simulate>> }
  | { readonly id: number; readonly error: { readonly message: string; readonly stack: string } };

const port = parentPort;
if (port === null) throw new Error("test/support/sim-worker runs in a worker thread");
port.on("message", (request: SimRequest) => {
  simulate(request.options).then(
    (report) => port.postMessage({ id: request.id, report } satisfies SimAnswer),
    (err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      port.postMessage({ id: request.id, error: { message: error.message, stack: error.stack ?? error.message } } satisfies SimAnswer);
    },
  );
});
