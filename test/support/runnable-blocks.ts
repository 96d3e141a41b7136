import { execFile } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./doc-files.js";
import { KINTSUGI_BIN } from "./run-cli.js";
import { tempDir } from "./temp-dir.js";

/**
 * The docs' runnable examples: fenced code blocks whose info string is `sh runnable`, optionally followed by
 * `server` (the block talks to a running kintsugi), `cke` (it runs next to a stand-in of CKE: a test sabakan, a
 * kintsugi serving it and a `ckecli` printing CKE's formats, in test/docs/switching-from-cke.test.ts) and
 * `needs=PROGRAM` (it runs only where PROGRAM is installed).
 */
export interface RunnableBlock {
  /** The file, as a path from the checkout's root. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** The block talks to a running kintsugi, whose address is in KINTSUGI_SERVER. */
  readonly server: boolean;
  /** The block runs next to a stand-in of CKE (test/docs/switching-from-cke.test.ts runs it, not the pages' test). */
  readonly cke: boolean;
  /** Programs that must be installed for the block to run. */
  readonly needs: readonly string[];
  /** The block's text, as written. */
  readonly text: string;
}

const FENCE = /^```(\S*)(.*)$/;

/** The runnable blocks of one Markdown file, in order; fails on a marked block this runner cannot run. */
export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const blocks: RunnableBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
    if (end === -1) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    const words = open[2]!.trim().split(/\s+/).filter(Boolean);
    if (words[0] === "runnable") {
      if (open[1] !== "sh") throw new Error(`${file}:${i + 1}: a runnable block must be \`\`\`sh, not \`\`\`${open[1]}`);
      const unknown = words.slice(1).filter((w) => w !== "server" && w !== "cke" && !w.startsWith("needs="));
      if (unknown.length > 0) throw new Error(`${file}:${i + 1}: unknown runnable option ${unknown.join(", ")}`);
      blocks.push({
        file,
        line: i + 1,
        server: words.includes("server"),
        cke: words.includes("cke"),
        needs: words.filter((w) => w.startsWith("needs=")).map((w) => w.slice("needs=".length)),
        text: lines.slice(i + 1, end).join("\n"),
      });
    }
    i = end;
  }
  return blocks;
}

/**
 * A throwaway operator's directory: HOME and working directory, holding a copy of the checkout's docs/ and deploy/
 * (the examples name them as a checkout has them) and `kintsugi` on PATH (the built binary).
 */
export function operatorDirectory(): { path: string; env: NodeJS.ProcessEnv; remove: () => void } {
  const dir = tempDir("kintsugi-docs-");
  for (const folder of ["docs", "deploy"]) cpSync(join(REPO, folder), join(dir.path, folder), { recursive: true });
  mkdirSync(join(dir.path, "bin"));
  writeFileSync(join(dir.path, "bin/kintsugi"), `#!/bin/sh\nexec '${process.execPath}' '${KINTSUGI_BIN}' "$@"\n`);
  chmodSync(join(dir.path, "bin/kintsugi"), 0o755);
  // None of the developer's KINTSUGI_* settings (a token, a server, TLS files) reaches the examples.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("KINTSUGI_")));
  return { path: dir.path, env: { ...inherited, HOME: dir.path, PATH: `${dir.path}/bin:${process.env.PATH ?? ""}` }, remove: dir.remove };
}

/** Runs a block's own text with `sh -e -x -c` (the text is ours, not input); its exit code and output, traced. */
export function runBlock(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("sh", ["-e", "-x", "-c", text], { cwd, env, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** What a failed block says: where it is, the command that failed (the shell's last trace line) and what it printed. */
export function failure(block: RunnableBlock, result: { code: number; stdout: string; stderr: string }): string {
  const lines = result.stderr.split("\n");
  const failed = lines.filter((line) => line.startsWith("+ ")).at(-1) ?? "(no command ran)";
  const printed = lines.filter((line) => !line.startsWith("+ ")).join("\n");
  return `${block.file}:${block.line}: the runnable block exited ${result.code} at ${failed}\n${block.text}\n--- stdout\n${result.stdout}--- stderr\n${printed}`;
}
