#!/usr/bin/env node
// The built CLI lives in dist/ (made by `npm run build`, which `npm ci` runs through `prepare`).
//
// graphql-js picks its type checks when it is loaded: without NODE_ENV=production it adds a check against a second
// copy of graphql to every failed instanceof, which costs list queries about a third of their speed (bench:api).
// So the modules load with NODE_ENV=production, and NODE_ENV is put back at once: Apollo's defaults and the
// repair commands kintsugi runs see the environment the operator gave.
const given = process.env.NODE_ENV;
if (given === undefined) process.env.NODE_ENV = "production";
const { main } = await import("../dist/cli/main.js");
if (given === undefined) delete process.env.NODE_ENV;

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`kintsugi: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
