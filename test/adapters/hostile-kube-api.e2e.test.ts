import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { HostileKubeApi, type HostileBehaviour } from "../support/hostile-kube-api.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const MAX_BYTES = 1024 * 1024;
// What the kernel's socket buffers and TLS may hold beyond the bound before kintsugi hangs up.
const SLACK_BYTES = 32 * 1024 * 1024;

/** The resident memory of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const line =
    readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:")) ?? "VmRSS: 0 kB";
  return Number(line.split(/\s+/)[1]) / 1024;
}

interface Case {
  readonly name: string;
  readonly behaviour: HostileBehaviour;
  /** The node watch's failure lines expected first, in order (the back-off doubling between them). */
  readonly watchFailures: readonly string[];
  /** The node list's failure, as the repair pass logs it; null: the list answers well. */
  readonly listFailure: RegExp | null;
  /** What the server must have seen: the client hung up on these answers before their end, within the bound. */
  readonly cutShort: "watch" | "list" | null;
}

const retrying = (failure: string) => [
  `node watch failed: ${failure}; retrying in 1 s, backing off to 5 minutes; further failures are not logged until it works again, with a reminder every 5 minutes`,
];

const CASES: readonly Case[] = [
  {
    name: "a watch line that never ends is cut at kubernetes.max_response_bytes",
    behaviour: "endless-watch-line",
    watchFailures: retrying(`a line longer than ${MAX_BYTES} bytes (kubernetes.max_response_bytes)`),
    listFailure: null,
    cutShort: "watch",
  },
  {
    name: "a NodeList that never ends is refused at kubernetes.max_response_bytes",
    behaviour: "huge-list",
    watchFailures: retrying("nothing received for 2 s"),
    listFailure: new RegExp(`^list nodes: nodes: the answer is larger than the ${MAX_BYTES} bytes allowed \\(kubernetes\\.max_response_bytes\\)$`),
    cutShort: "list",
  },
  {
    name: "a watch that sends nothing is restarted after watch_seconds plus timeout_seconds",
    behaviour: "silent-watch",
    watchFailures: retrying("nothing received for 2 s"),
    listFailure: null,
    cutShort: null,
  },
  {
    name: "an HTML page for a watch or a list is a failure, not a crash nor an empty cluster",
    behaviour: "non-json",
    watchFailures: retrying('a line that is not JSON: "<html><body>502 Bad Gateway</body></html>"'),
    listFailure: /^list nodes: nodes: .*JSON/,
    cutShort: null,
  },
];

describe("kintsugi serve against a hostile Kubernetes API server", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const api = await HostileKubeApi.start(c.behaviour);
      const dir = tempDir();
      let server: ServeProcess | null = null;
      try {
        writeFileSync(
          join(dir.path, "kintsugi.yaml"),
          `listen: "127.0.0.1:0"\ndatabase: ./k.db\nrunner: { interval_seconds: 0.5 }\n` +
            `kubernetes: { kubeconfig: ${JSON.stringify(api.kubeconfigPath)}, timeout_seconds: 1, max_response_bytes: ${MAX_BYTES}, watch_seconds: 1 }\n`,
        );
        server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
        const url = await server.url;
        const watchFailures = () =>
          server!
            .logRecords()
            .filter((r) => r.msg.startsWith("node watch failed"))
            .map((r) => r.msg);
        await until(
          "the watch is tried three times",
          () => api.of("watch").length,
          (n) => n >= 3,
        );
        // One line for the whole run of failures (a reminder comes only after 5 minutes), however often it is retried.
        assert.deepEqual(watchFailures(), c.watchFailures, "one line for the run of failures, the retry backing off");
        assert.ok(
          api.of("watch").every((w) => w.query["timeoutSeconds"] === "1"),
          "the server is asked to end each watch",
        );
        if (c.listFailure) {
          const pattern = c.listFailure;
          const failed = () => server!.logRecords().find((r) => typeof r["err"] === "string" && pattern.test(r["err"]));
          await until("the node list's failure is logged", failed);
        }
        if (c.cutShort) {
          const answers = api.of(c.cutShort);
          // The latest may still be under way (the runner lists every half second): those that ended were cut.
          const ended = answers.filter((a) => a.closed);
          assert.ok(ended.length > 0 && ended.every((a) => a.closedByClient), "kintsugi hung up on every answer");
          const most = Math.max(...answers.map((a) => a.bytesSent));
          assert.ok(most < MAX_BYTES + SLACK_BYTES, `read no more than the bound (the server sent at most ${most} bytes)`);
        }
        assert.equal((await fetch(`${url}/health`)).status, 200, "/health answers");
        const rss = rssMb(server.child.pid as number);
        assert.ok(rss < 400, `resident memory ${rss.toFixed(0)} MB`);
        server.child.kill("SIGTERM");
        assert.equal(await server.exitCode(10_000), 0, "still running, and stops cleanly");
        server = null;
      } finally {
        if (server) await server.exitCode(0);
        dir.remove();
        await api.close();
      }
    });
  }
});
