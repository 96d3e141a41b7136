// The command spawner: a small process a replica starts once and keeps, which starts the replica's commands for it
// (see command-spawner.ts). Forking it costs a fraction of what forking the replica does, and the fork is off the
// replica's event loop. It imports nothing but what starting and watching a child needs.
import { spawn } from "node:child_process";
import { serveSpawner } from "./spawner-serve.js";

serveSpawner(process.stdin, process.stdout, spawn, (why) => {
  if (why !== "end of input") process.stderr.write(`kintsugi command spawner: ${why}\n`);
  process.exit(why === "end of input" ? 0 : 2);
});
