import type { CommandOptions, CommandOutcome, CommandRunner } from "../../src/adapters/ports.js";

/** One command the runner ran: its argv, and a way to end it while it is held. */
export interface FakeRun {
  readonly argv: readonly string[];
  readonly options: CommandOptions;
  /** The outcome it resolved with, once it did. */
  readonly outcome: CommandOutcome | undefined;
  /** Whether it ended because its AbortSignal fired. */
  readonly aborted: boolean;
  /** Ends a held run with `outcome` (ignored once it has ended). */
  finish(outcome: CommandOutcome): void;
}

/** How the fake answers a command: an outcome at once, or "hold" until the test calls `finish` (or it aborts). */
export type Responder = (argv: readonly string[]) => CommandOutcome | "hold";

export const ok = (stdout = ""): CommandOutcome => ({ kind: "ok", stdout, stderr: "" });
export const exitCode = (code: number, stderr = ""): CommandOutcome => ({ kind: "exit", code, signal: null, stdout: "", stderr });

/**
 * A CommandRunner whose runs the test controls: each call is recorded with its argv; `respond` answers it at once
 * or holds it until the test finishes it. An aborted signal ends a held run with `aborted`, as the real one does.
 */
export class FakeCommandRunner implements CommandRunner {
  readonly runs: FakeRun[] = [];
  private readonly waiters: Array<{ match: (run: FakeRun) => boolean; resolve: (run: FakeRun) => void }> = [];

  constructor(public respond: Responder) {}

  run(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome> {
    let settle: (outcome: CommandOutcome) => void = () => {};
    const done = new Promise<CommandOutcome>((resolve) => (settle = resolve));
    const run = {
      argv: [...argv],
      options,
      outcome: undefined as CommandOutcome | undefined,
      aborted: false,
      finish(outcome: CommandOutcome) {
        if (run.outcome) return;
        run.outcome = outcome;
        options.signal?.removeEventListener("abort", onAbort);
        settle(outcome);
      },
    };
    const onAbort = () => {
      if (run.outcome) return;
      run.aborted = true;
      run.finish({ kind: "aborted" });
    };
    this.runs.push(run);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const answer = this.respond(argv);
    if (answer !== "hold") run.finish(answer);
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(run)) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(run);
    }
    return done;
  }

  /** The first run (already made or still to come) whose argv starts with `prefix` and that is still held. */
  held(...prefix: string[]): Promise<FakeRun> {
    const match = (run: FakeRun) => run.outcome === undefined && prefix.every((word, i) => run.argv[i] === word);
    const found = this.runs.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The argvs run so far whose first word is `command`. */
  ran(command: string): Array<readonly string[]> {
    return this.runs.filter((r) => r.argv[0] === command).map((r) => r.argv);
  }
}
