import type { Logger } from "pino";

/** One step of shutdown: a name for the log, and what it does. */
export type ShutdownStep = readonly [name: string, stop: () => Promise<unknown> | void];

/**
 * Runs the steps of shutdown in order, each after the previous one has ended. A step that fails is logged and the
 * next still runs: a failure to close the API must not leave commands running or the database open.
 */
export async function shutDown(steps: readonly ShutdownStep[], logger: Logger): Promise<void> {
  for (const [name, stop] of steps) {
    try {
      await stop();
    } catch (err) {
      logger.error({ err, step: name }, "a shutdown step failed; going on with the next");
    }
  }
}
