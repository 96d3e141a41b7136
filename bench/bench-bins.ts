// The builds a bench measures: KINTSUGI_BENCH_BINS=label=path,label=path (alternated in one run, so the machine's
// load weighs on each alike), else KINTSUGI_BENCH_BIN=path, else this checkout's bin/kintsugi.js (unlabelled).
import { KINTSUGI_BIN } from "../test/support/run-cli.js";

export interface BenchBin {
  /** The build's name in the bench's table ("" when only one is measured). */
  readonly label: string;
  /** Its bin/kintsugi.js (the checkout must be built). */
  readonly path: string;
}

export function benchBins(): readonly BenchBin[] {
  const several = process.env["KINTSUGI_BENCH_BINS"];
  if (!several) return [{ label: "", path: process.env["KINTSUGI_BENCH_BIN"] ?? KINTSUGI_BIN }];
  return several.split(",").map((b) => {
    const at = b.indexOf("=");
    if (at <= 0) throw new Error(`KINTSUGI_BENCH_BINS: ${b} is not label=path`);
    return { label: b.slice(0, at), path: b.slice(at + 1) };
  });
}
