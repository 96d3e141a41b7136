// npm pack's prepack and postpack: the tarball carries the lock file as npm-shrinkwrap.json, so that installing it
// with `npm ci` (deploy/Dockerfile, docs/install.md) gets exactly the dependency versions kintsugi was tested
// with. npm never packs package-lock.json itself; the copy is removed again once the tarball is written.
import { copyFileSync, rmSync } from "node:fs";

if (process.argv[2] === "--remove") rmSync("npm-shrinkwrap.json", { force: true });
else copyFileSync("package-lock.json", "npm-shrinkwrap.json");
