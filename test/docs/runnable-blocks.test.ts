import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import YAML from "yaml";
import { DOC_FILES, REPO, readDoc } from "../support/doc-files.js";
import { findProgram } from "../support/find-program.js";
import { runnableBlocks, type RunnableBlock } from "../support/runnable-blocks.js";
import { KINTSUGI_BIN, runCli } from "../support/run-cli.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

// The address the docs' examples name; a block runs with the test server's in its place.
const DOCS_ADDRESS = "127.0.0.1:10180";
const SERVER_CONFIG = "docs/examples/try-it.yaml";

/**
 * A throwaway operator's directory: HOME and working directory, holding a copy of the checkout's docs/ and deploy/
 * (the examples name them as a checkout has them) and `kintsugi` on PATH (the built binary).
 */
function operatorDirectory(): { path: string; env: NodeJS.ProcessEnv; remove: () => void } {
  const dir = tempDir("kintsugi-docs-");
  for (const folder of ["docs", "deploy"]) cpSync(join(REPO, folder), join(dir.path, folder), { recursive: true });
  mkdirSync(join(dir.path, "bin"));
  writeFileSync(join(dir.path, "bin/kintsugi"), `#!/bin/sh\nexec '${process.execPath}' '${KINTSUGI_BIN}' "$@"\n`);
  chmodSync(join(dir.path, "bin/kintsugi"), 0o755);
  // None of the developer's KINTSUGI_* settings (a token, a server, TLS files) reaches the examples.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("KINTSUGI_")));
  return { path: dir.path, env: { ...inherited, HOME: dir.path, PATH: `${dir.path}/bin:${process.env.PATH ?? ""}` }, remove: dir.remove };
}

/** Starts kintsugi in `cwd` on the docs' example config, on a free port. */
function startServer(cwd: string, env: NodeJS.ProcessEnv): ServeProcess {
  const config = YAML.parse(readDoc(SERVER_CONFIG)) as Record<string, unknown>;
  writeFileSync(join(cwd, "docs-server.yaml"), YAML.stringify({ ...config, listen: "127.0.0.1:0" }));
  return serveProcess(["--config", "docs-server.yaml"], cwd, env);
}

/** Runs a block's own text with `sh -e -x -c` (the text is ours, not input); its exit code and output, traced. */
function runBlock(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("sh", ["-e", "-x", "-c", text], { cwd, env, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const BLOCKS = DOC_FILES.map((file) => ({ file, blocks: runnableBlocks(file, readDoc(file)) })).filter((f) => f.blocks.length > 0);

describe("the docs mark runnable examples", () => {
  it("some, in several pages", () => assert.ok(BLOCKS.length >= 4, `only ${BLOCKS.map((f) => f.file).join(", ")}`));
});

for (const { file, blocks } of BLOCKS) {
  describe(`${file}: every runnable block runs`, () => {
    const dir = operatorDirectory();
    let server: ServeProcess | undefined;
    let address: string | undefined;

    before(async () => {
      if (!blocks.some((b) => b.server)) return;
      server = startServer(dir.path, dir.env);
      const url = await server.url;
      address = new URL(url).host;
      dir.env.KINTSUGI_SERVER = url;
    });
    after(async () => {
      if (server && server.child.exitCode === null) {
        server.child.kill("SIGTERM");
        await server.exited;
      }
      dir.remove();
    });

    for (const block of blocks) {
      const missing = block.needs.filter((program) => findProgram(program) === null);
      it(`${block.file}:${block.line}`, { skip: missing.length > 0 ? `needs ${missing.join(", ")}` : false }, async () => {
        const text = address ? block.text.replaceAll(DOCS_ADDRESS, address) : block.text;
        const result = await runBlock(text, dir.path, dir.env);
        assert.equal(result.code, 0, failure(block, result));
      });
    }
  });
}

/** What a failed block says: where it is, the command that failed (the shell's last trace line) and what it printed. */
function failure(block: RunnableBlock, result: { code: number; stdout: string; stderr: string }): string {
  const lines = result.stderr.split("\n");
  const failed = lines.filter((line) => line.startsWith("+ ")).at(-1) ?? "(no command ran)";
  const printed = lines.filter((line) => !line.startsWith("+ ")).join("\n");
  return `${block.file}:${block.line}: the runnable block exited ${result.code} at ${failed}\n${block.text}\n--- stdout\n${result.stdout}--- stderr\n${printed}`;
}

describe("every example config in docs/ passes kintsugi check-config (deploy/'s: test/deploy/example-configs.test.ts)", () => {
  const configs = (readdirSync(join(REPO, "docs"), { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f)).map((f) => `docs/${f}`);
  it("there are some", () => assert.ok(configs.length > 0));
  for (const config of configs) {
    it(config, async () => {
      const dir = operatorDirectory();
      try {
        const result = await runCli(["check-config", config], { cwd: dir.path, env: dir.env });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, `${config}: ok\n`);
      } finally {
        dir.remove();
      }
    });
  }
});
