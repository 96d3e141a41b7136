import cron, { type ScheduledTask } from "node-cron";
import type { Log } from "../support/log.js";

/** Something that runs one round per tick and can be waited for. */
export interface Tickable {
  tick(): Promise<unknown>;
  idle(): Promise<void>;
}

/**
 * Runs `target.tick()` on a cron schedule (seconds field allowed): the sabakan poll of auto-repair and the rounds of
 * cluster generation. A tick that comes while the previous one runs is skipped, quietly: node-cron would otherwise
 * print a coloured warning for each.
 */
export function scheduleTicks(name: string, expression: string, target: Tickable, log: Log): { stop(): Promise<void> } {
  const task: ScheduledTask = cron.schedule(
    expression,
    async () => {
      await target.tick();
    },
    {
      name,
      noOverlap: true,
      logger: {
        info: () => undefined,
        debug: () => undefined,
        warn: (message) => log.info(`${name} schedule`, { message }),
        error: (message) => log.error(`${name} schedule`, { message: String(message) }),
      },
    },
  );
  return {
    async stop() {
      await task.stop();
      await target.idle();
    },
  };
}
