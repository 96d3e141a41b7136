// npm run sim -- --help
// Runs the data-center simulator (src/sim/sim-cli.ts). Exit code 1 when an invariant was violated (the report says
// how to replay it), 2 for a usage error.
import { simCli } from "./sim-cli.js";

simCli(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`kintsugi sim: ${(err as Error).message}`);
    process.exitCode = 2;
  },
);
