import { Command } from "commander";
import { addLastOption, parseCount } from "./last-option.js";
import { ckeJson } from "./cke-json.js";
import { CliError } from "./client.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import { readTextFile, type CliIo } from "./repair-queue-commands.js";

/** `kintsugi cluster ...`: the generated cluster configuration. */
export function clusterCommand(io: CliIo): Command {
  const cmd = new Command("cluster").description("read the cluster configuration generated from sabakan's machines");

  cmd
    .command("get")
    .description("print the generated cluster configuration in force (cluster.yml)")
    .option("--generation <N>", "print this kept earlier generation instead", parseCount)
    .action(async (opts: { generation?: number }) => {
      const r = await io.client().request<Op.GetGeneratedClusterQuery>(D.GetGeneratedCluster, { generation: opts.generation ?? null });
      if (!r.generatedCluster) {
        throw new CliError(
          opts.generation === undefined
            ? "no cluster configuration has been generated yet (see kintsugi cluster history)"
            : `generation ${opts.generation} is not kept (see kintsugi cluster history)`,
        );
      }
      io.out(r.generatedCluster.yaml);
    });

  cmd
    .command("generate")
    .description("run one generation round now and print how it ended as JSON (exit 1 when it failed)")
    .action(async () => {
      const r = await io.client().request<Op.RunClusterGenerationMutation>(D.RunClusterGeneration);
      const round = r.runClusterGeneration;
      io.out(ckeJson({ outcome: round.outcome, generation: round.cluster?.generation ?? null, record: round.record }));
      if (round.outcome === "FAILED") throw new CliError(`cluster generation failed: ${round.record?.error ?? "unknown error"}`);
    });

  cmd
    .command("adopt")
    .description(
      "take FILE (the cluster.yml CKE runs: ckecli cluster get) as the configuration in force, so the next round updates it as CKE would; prints the worker_selection that reproduces it as JSON",
    )
    .argument("<FILE>")
    .action(async (file: string) => {
      const r = await io.client().request<Op.AdoptClusterMutation>(D.AdoptCluster, { cluster: readTextFile(file) });
      const a = r.adoptCluster;
      io.out(
        ckeJson({ generation: a.cluster.generation, suggestedWorkerSelection: a.suggestedWorkerSelection, suggestion: a.suggestion, nextRounds: a.nextRounds }),
      );
    });

  addLastOption(
    cmd.command("history").description("print the latest generation records (new configurations, failures, recoveries) as a JSON array, oldest first"),
    "100",
  ).action(async (opts: { last: number }) => {
    const r = await io.client().request<Op.ClusterGenerationsQuery>(D.ClusterGenerations, { last: opts.last });
    io.out(ckeJson(r.clusterGenerations));
  });

  return cmd;
}
