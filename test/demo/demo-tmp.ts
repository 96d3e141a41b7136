import { readdirSync } from "node:fs";
import { tempDir } from "../support/temp-dir.js";

/** A folder for the demo's temporary folders (its TMPDIR), to see that it leaves none (tsx keeps its cache there too). */
export function demoTmp(): { readonly env: NodeJS.ProcessEnv; left(): string[]; remove(): void } {
  const dir = tempDir("kintsugi-demo-test-");
  return { env: { TMPDIR: dir.path }, left: () => readdirSync(dir.path).filter((name) => !name.startsWith("tsx-")), remove: dir.remove };
}
