import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

/** A dependency that is down: it takes each connection and hangs up at once, counting them (each one a try). */
async function downServer(): Promise<{ server: Server; port: number; tries: () => number }> {
  let tries = 0;
  const server = createServer((socket: Socket) => {
    tries++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, tries: () => tries };
}

interface LogLine {
  readonly level: number;
  readonly msg: string;
}

/**
 * The real `kintsugi serve` with sabakan and Kubernetes both down: its repair passes (every 0.1 s) and node watch
 * meet Kubernetes, its auto-repair polls meet sabakan. Each failure used to be one log line; now each loop says it
 * once (a reminder comes only after 5 minutes).
 */
describe("a kintsugi whose sabakan and Kubernetes are down (the real server process)", () => {
  it("logs each failing loop once over many retries, not once per retry", async () => {
    const dir = tempDir();
    const kube = await downServer();
    const sabakan = await downServer();
    const kubeconfig = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "down", cluster: { server: `https://127.0.0.1:${kube.port}`, "insecure-skip-tls-verify": true } }],
      users: [{ name: "down", user: { token: "t" } }],
      contexts: [{ name: "down", context: { cluster: "down", user: "down" } }],
      "current-context": "down",
    };
    writeFileSync(join(dir.path, "kubeconfig"), JSON.stringify(kubeconfig));
    writeFileSync(
      join(dir.path, "kintsugi.yaml"),
      `listen: "127.0.0.1:0"
database: ./kintsugi.db
runner:
  interval_seconds: 0.1
kubernetes:
  kubeconfig: ./kubeconfig
sabakan:
  url: "http://127.0.0.1:${sabakan.port}"
  schedule: "0 0 1 1 *"
`,
    );
    let server: ServeProcess | undefined;
    const lines: LogLine[] = [];
    try {
      server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      let buffered = "";
      server.child.stdout?.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split("\n");
        buffered = parts.pop() ?? "";
        for (const part of parts) {
          try {
            lines.push(JSON.parse(part) as LogLine);
          } catch {
            // not a log line
          }
        }
      });
      const url = await server.url;
      await gql(url, "mutation { setAutoRepairEnabled(enabled: true) }");
      const polls = 10;
      for (let i = 0; i < polls; i++) {
        const { runAutoRepair } = await gql<{ runAutoRepair: { error: string | null } }>(url, "mutation { runAutoRepair { error } }");
        assert.ok(runAutoRepair.error, "sabakan is down: the poll failed");
      }
      assert.ok(sabakan.tries() >= polls, `sabakan was tried ${sabakan.tries()} times`);
      await until("Kubernetes was tried 30 times (repair passes and the node watch)", kube.tries, (n) => n >= 30, 60_000);
      // A line the server wrote after those tries is in: a request's answer comes after its log lines.
      await gql(url, "{ repairQueueEnabled }");

      const failures = lines.filter((l) => l.level >= 40);
      const about = (pattern: RegExp) => failures.filter((l) => pattern.test(l.msg)).length;
      assert.equal(about(/repair pass failed/), 1, JSON.stringify(failures.map((l) => l.msg)));
      assert.equal(about(/auto-repair poll failed/), 1);
      assert.equal(about(/node watch failed/), 1, "the node watch, retried many times, says so once");
      // The start's own warnings: no auth section, and sabakan's fleet not counted (said once, whenever the count fails).
      const startWarnings = /^no auth section|^cannot count sabakan's machines/;
      assert.ok(about(/^cannot count sabakan's machines/) <= 1, JSON.stringify(failures.map((l) => l.msg)));
      assert.ok(
        failures.filter((l) => !startWarnings.test(l.msg)).length <= 3,
        `at most a line per failing loop (repair pass, poll, node watch) besides the start's own warnings: ${JSON.stringify(failures.map((l) => l.msg))}`,
      );
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      kube.server.close();
      sabakan.server.close();
      dir.remove();
    }
  });
});
