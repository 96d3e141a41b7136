// Names the TypeScript lines of a stack trace that gives the lines of transpiled JavaScript: the test processes of
// scripts/run-tests.mjs run .test-build/ and dist/ without node's --enable-source-maps, which reads and parses the
// source map of every module a process loads (about 0.15 s of CPU in each process that loads the server, some 15 s
// a run), so run-tests's list of failed tests maps their stacks here instead, from the same source maps: a file's
// inline one (.test-build/, scripts/build-tests.mjs) or the .map file it names (dist/, scripts/build-dist.mjs).
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A stack trace's position in a .js file: an absolute path or a file: URL, then :line:column. */
const POSITION = /(?:file:\/\/)?(\/[^\s():]+\.[cm]?js):(\d+):(\d+)/g;
const MAPPING_URL = /\/\/# sourceMappingURL=(\S+)\s*$/;

/** The source map of the .js file `file`, with the folder its sources are relative to; null without one. */
function readSourceMap(file) {
  try {
    const url = MAPPING_URL.exec(readFileSync(file, "utf8"))?.[1];
    if (url === undefined) return null;
    const text = url.startsWith("data:")
      ? Buffer.from(url.slice(url.indexOf(",") + 1), "base64").toString("utf8")
      : readFileSync(resolve(dirname(file), decodeURIComponent(url)), "utf8");
    const payload = JSON.parse(text);
    return { map: new SourceMap(payload), base: resolve(dirname(file), payload.sourceRoot ?? "") };
  } catch {
    return null;
  }
}

/**
 * Returns a function that rewrites each position in a stack trace's text that a source map covers to its source's
 * path, line and column (as node's --enable-source-maps prints them); other positions stay as they are. Each file's
 * map is read once.
 */
export function stackPositionMapper() {
  const maps = new Map();
  const mapOf = (file) => {
    if (!maps.has(file)) maps.set(file, readSourceMap(file));
    return maps.get(file);
  };
  return (text) =>
    text.replace(POSITION, (whole, file, line, column) => {
      const found = mapOf(file);
      const entry = found?.map.findEntry(Number(line) - 1, Number(column) - 1);
      if (found === null || entry?.originalSource === undefined) return whole;
      const source = entry.originalSource.startsWith("file:") ? fileURLToPath(entry.originalSource) : resolve(found.base, entry.originalSource);
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
}
