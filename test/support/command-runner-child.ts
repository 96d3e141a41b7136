// A process that runs one command through ProcessCommandRunner and prints "started" once it is spawned: tests kill
// or freeze this process and look at what becomes of the command. argv: timeout seconds, then the command's argv.
import { ProcessCommandRunner } from "../../src/adapters/command-runner.js";

const [timeout, ...argv] = process.argv.slice(2);
const runner = new ProcessCommandRunner({ killGraceMs: 500 });
const outcome = runner.run(argv, { timeoutSeconds: Number(timeout) });
process.stdout.write("started\n");
process.stdout.write(`${JSON.stringify(await outcome)}\n`);
