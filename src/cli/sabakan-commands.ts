import { readTextBounded } from "../support/bounded-read.js";
import { Command, Option } from "commander";
import { readVariablesFile } from "./auto-repair-commands.js";
import { printableJsonText } from "../domain/shared/untrusted-text.js";
import { CliError } from "./client.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";
import { addToggleCommands } from "./toggle-commands.js";

/** Reads a template file as text; the server validates it and keeps it verbatim. */
function readTemplateFile(path: string): string {
  try {
    return readTextBounded(path);
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** `kintsugi sabakan ...`: the template, query variables and switch of cluster generation, as `ckecli sabakan`. */
export function sabakanCommand(io: CliIo): Command {
  const cmd = new Command("sabakan").description("control cluster generation from sabakan's machines (as ckecli sabakan)");

  cmd
    .command("set-template")
    .description("validate and store FILE (cluster.yml syntax, YAML or JSON) as the cluster template; the cluster is regenerated soon")
    .argument("<FILE>")
    .action(async (file: string) => {
      await io.client().request<Op.SetClusterTemplateMutation>(D.SetClusterTemplate, { template: readTemplateFile(file) });
    });

  // ckecli prints the template it parsed, as YAML (sabakan_get_template.go), not the file as written.
  cmd
    .command("get-template")
    .description("print the parsed cluster template as YAML, as ckecli (--as-set: the text as it was set)")
    .addOption(new Option("--as-set", "print the template as it was set, comments and all"))
    .action(async (options: { asSet?: boolean }) => {
      const r = await io.client().request<Op.GetClusterTemplateQuery>(D.GetClusterTemplate);
      if (!r.clusterTemplate) throw new CliError("no cluster template is set (kintsugi sabakan set-template FILE sets one)");
      const text = r.clusterTemplate.template;
      // The YAML library loads for this command only.
      const [{ parseTemplate }, { templateYaml }] = await Promise.all([import("../domain/cluster/template.js"), import("../domain/cluster/cluster-yaml.js")]);
      const parsed = options.asSet ? null : parseTemplate(text);
      if (parsed?.ok) return io.out(templateYaml(parsed.template));
      if (parsed) io.note?.(`kintsugi: warning: the stored template no longer reads as one (${parsed.errors.join("; ")}); printed as it was set\n`);
      io.out(text.endsWith("\n") ? text : `${text}\n`);
    });

  cmd
    .command("set-variables")
    .description('replace the searchMachines variables of cluster generation with FILE\'s JSON {"having": {...}, "notHaving": {...}}')
    .argument("<FILE>")
    .action(async (file: string) => {
      const { text } = readVariablesFile(file, io.note);
      await io.client().request<Op.SetClusterVariablesMutation>(D.SetClusterVariables, { text });
    });

  // As auto-repair get-variables: the stored bytes, or "not found" (sabakan_get_variables.go).
  cmd
    .command("get-variables")
    .description("print the searchMachines variables of cluster generation exactly as set-variables was given them")
    .action(async () => {
      const r = await io.client().request<Op.GetClusterVariablesQuery>(D.GetClusterVariables);
      if (r.clusterVariables.text === null || r.clusterVariables.text === undefined) throw new CliError("not found");
      io.out(printableJsonText(r.clusterVariables.text));
    });

  addToggleCommands(cmd, io, {
    noun: "cluster generation",
    disabledMeans: "no rounds run and the configuration in force stays",
    query: D.ClusterGenerationEnabled,
    mutation: D.SetClusterGenerationEnabled,
    field: "clusterGenerationEnabled",
  });

  // ckecli keeps sabakan's URL in CKE's store; kintsugi reads it from its config file. The command exists so that an
  // operator who types ckecli's habit learns where the URL lives instead of reading "unknown command".
  cmd
    .command("set-url")
    .description("ckecli's set-url: kintsugi reads sabakan's URL from its config file (sabakan.url); says so")
    .argument("[URL]")
    .action(() => {
      throw new CliError(
        "sabakan set-url: kintsugi reads sabakan's URL from its config file, not from its store as CKE does: set sabakan.url there (kintsugi check-config FILE checks it) and restart kintsugi serve",
      );
    });
  return cmd;
}
