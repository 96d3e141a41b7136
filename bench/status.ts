// bench/status: the status page's first render with 10,000 machines in 350 racks (see bench/status-render.ts, which
// bench/stats prints too). Prints figures; asserts nothing. Run: npm run bench:status (it builds first: the page is
// bundled at build time).
import { measureStatusFirstRender, statusRenderLine } from "./status-render.js";

console.log(statusRenderLine(await measureStatusFirstRender(5, (line) => console.log(line))));
