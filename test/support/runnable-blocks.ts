/**
 * The docs' runnable examples: fenced code blocks whose info string is `sh runnable`, optionally followed by
 * `server` (the block talks to a running kintsugi) and `needs=PROGRAM` (it runs only where PROGRAM is installed).
 */
export interface RunnableBlock {
  /** The file, as a path from the checkout's root. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** The block talks to a running kintsugi, whose address is in KINTSUGI_SERVER. */
  readonly server: boolean;
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
      const unknown = words.slice(1).filter((w) => w !== "server" && !w.startsWith("needs="));
      if (unknown.length > 0) throw new Error(`${file}:${i + 1}: unknown runnable option ${unknown.join(", ")}`);
      blocks.push({
        file,
        line: i + 1,
        server: words.includes("server"),
        needs: words.filter((w) => w.startsWith("needs=")).map((w) => w.slice("needs=".length)),
        text: lines.slice(i + 1, end).join("\n"),
      });
    }
    i = end;
  }
  return blocks;
}
