import cron, { type ScheduledTask } from "node-cron";
import type { AutoRepairPoller } from "./auto-repair-poller.js";
import type { RunnerLog } from "./runner-deps.js";

/**
 * Runs the poller on sabakan's cron schedule (seconds field allowed). A tick that comes while a poll is running is
 * skipped, quietly: node-cron would otherwise print a coloured warning for each.
 */
export function scheduleAutoRepair(expression: string, poller: AutoRepairPoller, log: RunnerLog): { stop(): Promise<void> } {
  const task: ScheduledTask = cron.schedule(
    expression,
    async () => {
      await poller.tick();
    },
    {
      name: "auto-repair",
      noOverlap: true,
      logger: {
        info: () => undefined,
        debug: () => undefined,
        warn: (message) => log.info("auto-repair schedule", { message }),
        error: (message) => log.error("auto-repair schedule", { message: String(message) }),
      },
    },
  );
  return {
    async stop() {
      await task.stop();
      await poller.idle();
    },
  };
}
