import { Command } from "commander";
import { ckeJson } from "./cke-json.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";

/** `kintsugi health-check list|pause NAME|resume NAME`. */
export function healthCheckCommand(io: CliIo): Command {
  const cmd = new Command("health-check").description("inspect, pause and resume node health checks");

  cmd
    .command("list")
    .description("print every health check with its latest evaluation as JSON")
    .action(async () => {
      const r = await io.client().request<Op.ListHealthChecksQuery>(D.ListHealthChecks);
      io.out(ckeJson(r.healthChecks));
    });

  for (const [verb, paused, what] of [
    ["pause", true, "stop remediating (evaluation goes on)"],
    ["resume", false, "remediate again"],
  ] as const) {
    cmd
      .command(verb)
      .description(`${what}; persistent`)
      .argument("<NAME>")
      .action(async (name: string) => {
        await io.client().request<Op.SetHealthCheckPausedMutation>(D.SetHealthCheckPaused, { name, paused });
      });
  }
  return cmd;
}
