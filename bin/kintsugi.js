#!/usr/bin/env node
// The built CLI lives in dist/ (made by `npm run build`, which `npm ci` runs through `prepare`).
import { main } from "../dist/cli/main.js";

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`kintsugi: ${err instanceof Error ? err.message : String(err)}\n`); process.exitCode = 1; },
);
