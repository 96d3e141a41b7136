import { Worker, type WorkerOptions } from "node:worker_threads";
import { GraphQLError } from "graphql";
import type { ReplayJob, ReplayJobResult } from "../../domain/replay/replay-job.js";
import type { PackedRecords } from "./packed-records.js";

/** What the worker is handed: the job without its records, and the records as stored (decoded in the worker). */
export interface ReplayWorkerInput {
  readonly job: Omit<ReplayJob, "polls" | "remediations">;
  readonly polls: PackedRecords;
  readonly remediations: PackedRecords;
}

/** What the worker answers: the job's result, and how many records it could not read. */
export interface ReplayWorkerOutput {
  readonly result: ReplayJobResult;
  readonly unreadable: number;
}

// Built, the worker is the .js next to this file in dist/. Under tsx (tests, benches) it is the .ts, and a worker
// does not run its parent's `--import tsx`: it registers tsx itself before it imports the worker.
const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./replay-worker.ts" : "./replay-worker.js", import.meta.url);

function startWorker(url: URL, options: WorkerOptions): Worker {
  if (!url.pathname.endsWith(".ts")) return new Worker(url, options);
  const code = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}

/** A worker's heap: a replay within REPLAY_BOUNDS fits; past it the worker fails alone, never the server. */
const WORKER_HEAP_MB = 2048;

/**
 * Runs replays in a worker thread, one at a time server-wide, each within `budgetSeconds` (limits.replay_seconds)
 * from the moment it is admitted, reading included. A second replay while one runs is refused at once (a wait
 * would only hold its client as long as the first); a replay over its budget, or whose client went away (`signal`),
 * has its worker terminated, and over budget the client gets an error, never part of an answer.
 */
export class ReplayThreads {
  private running = false;

  constructor(
    private readonly budgetSeconds: number,
    private readonly workerUrl: URL = WORKER_URL,
  ) {}

  /** Admits a replay, gathers its input (`gather`: the store's records) and runs it in a worker. */
  async run(gather: () => Promise<ReplayWorkerInput>, signal?: AbortSignal): Promise<ReplayWorkerOutput> {
    if (this.running) {
      throw replayError(
        `another replay is running; kintsugi runs one at a time, each for at most ${this.budgetSeconds} s (limits.replay_seconds): try again when it has answered`,
      );
    }
    this.running = true;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort("budget"), this.budgetSeconds * 1000);
    const clientGone = () => stop.abort("client gone");
    signal?.addEventListener("abort", clientGone, { once: true });
    if (signal?.aborted) clientGone();
    const gathering = gather();
    let worker: Promise<ReplayWorkerOutput> | null = null;
    try {
      const input = await untilStopped(gathering, stop.signal);
      worker = this.inWorker(input, stop.signal);
      return await worker;
    } catch (err) {
      if (stop.signal.aborted && stop.signal.reason === "budget") {
        throw replayError(
          `the replay did not finish within ${this.budgetSeconds} s (limits.replay_seconds) and was stopped; nothing of it is answered: choose a later since, or raise limits.replay_seconds`,
        );
      }
      if (stop.signal.aborted) throw replayError("the replay was stopped: its client went away");
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", clientGone);
      // The slot is free once the read and the worker have both ended, not merely once the client was answered.
      void Promise.allSettled([gathering, worker ?? Promise.resolve()]).then(() => (this.running = false));
    }
  }

  private inWorker(input: ReplayWorkerInput, stop: AbortSignal): Promise<ReplayWorkerOutput> {
    return new Promise((resolve, reject) => {
      if (stop.aborted) return reject(new Error("stopped"));
      const worker = startWorker(this.workerUrl, {
        workerData: input,
        transferList: [input.polls.bytes.buffer as ArrayBuffer, input.remediations.bytes.buffer as ArrayBuffer],
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      });
      let answered = false;
      // Settled once the thread is gone, so that the slot is free only when the CPU is.
      stop.addEventListener("abort", () => void worker.terminate().finally(() => reject(new Error("stopped"))), { once: true });
      worker.once("message", (output: ReplayWorkerOutput) => {
        answered = true;
        void worker.terminate().finally(() => resolve(output));
      });
      worker.once("error", (err) =>
        reject(
          (err as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY"
            ? replayError(`the replay needed more than ${WORKER_HEAP_MB} MB and was stopped: choose a later since`)
            : err,
        ),
      );
      worker.once("exit", (code) => {
        if (!answered) reject(new Error(`the replay's worker ended with code ${code} before answering`));
      });
    });
  }
}

/** `work`, or a rejection as soon as `stop` fires (the work itself goes on; its end frees the slot). */
function untilStopped<T>(work: Promise<T>, stop: AbortSignal): Promise<T> {
  if (stop.aborted) return Promise.reject(new Error("stopped"));
  return new Promise((resolve, reject) => {
    stop.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
    work.then(resolve, reject);
  });
}

function replayError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.replay_seconds" } });
}
