import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import YAML from "yaml";
import { DOC_FILES, REPO, readDoc } from "../support/doc-files.js";
import { findProgram } from "../support/find-program.js";
import { failure, operatorDirectory, runBlock, runnableBlocks } from "../support/runnable-blocks.js";
import { runCli } from "../support/run-cli.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";

// The address the docs' examples name; a block runs with the test server's in its place.
const DOCS_ADDRESS = "127.0.0.1:10180";
const SERVER_CONFIG = "docs/examples/try-it.yaml";

/** Starts kintsugi in `cwd` on the docs' example config, on a free port. */
function startServer(cwd: string, env: NodeJS.ProcessEnv): ServeProcess {
  const config = YAML.parse(readDoc(SERVER_CONFIG)) as Record<string, unknown>;
  writeFileSync(join(cwd, "docs-server.yaml"), YAML.stringify({ ...config, listen: "127.0.0.1:0" }));
  return serveProcess(["--config", "docs-server.yaml"], cwd, env);
}

// Blocks marked `cke` need a stand-in of CKE: test/docs/switching-from-cke.test.ts runs them.
const BLOCKS = DOC_FILES.map((file) => ({ file, blocks: runnableBlocks(file, readDoc(file)).filter((b) => !b.cke) })).filter((f) => f.blocks.length > 0);

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
