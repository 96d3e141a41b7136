#!/usr/bin/env -S node --max-semi-space-size=8 --expose-gc
// V8's young generation: at most 8 MB a semi-space (16 MB is V8's default on 64 bits). A replica grows its young
// generation to the limit while it loads what it keeps (10,000 finished repairs) and keeps it, mostly empty, for
// good: half the limit saves about 16 MB of resident memory for a few more, cheap scavenges (bench:memory,
// bench:api). --expose-gc lets serve collect what starting read, once it runs (src/cli/serve-command.ts). `env -S`
// (coreutils 8.30+) passes the flags; running `node bin/kintsugi.js` directly goes without them.
// The built CLI lives in dist/ (made by `npm run build`, which `npm ci` runs through `prepare`): its front bundled in
// one file (scripts/build-cli.mjs), the server and what else a command loads on demand as tsc wrote them.
const { main } = await import("../dist/kintsugi-cli.js");

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`kintsugi: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
