// A process that runs one command through ProcessCommandRunner and prints "started" and its spawner's pid once it has
// handed the command over: tests kill or freeze this process and look at what becomes of the command and the
// spawner. argv: timeout seconds, then the command's argv.
import { ProcessCommandRunner } from "../../src/adapters/command-runner.js";
import { CommandSpawner } from "../../src/adapters/command-spawner.js";

const [timeout, ...argv] = process.argv.slice(2);
const spawner = new CommandSpawner();
const runner = new ProcessCommandRunner({ killGraceMs: 500, spawner });
const outcome = runner.run(argv, { timeoutSeconds: Number(timeout) });
process.stdout.write(`started ${spawner.pid}\n`);
process.stdout.write(`${JSON.stringify(await outcome)}\n`);
