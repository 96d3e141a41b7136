import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type * as k8s from "./kube-client.js";
import { outageStep, REACHABLE, retryDelay, type OutageState } from "../domain/service/outage-notice.js";
import { escapeControlCharacters } from "../domain/shared/untrusted-text.js";
import { WatchLines } from "./watch-lines.js";

/** What bounds a node watch, and where its failures are told. */
export interface NodeWatchLimits {
  /** The longest line (one event) read; a longer one ends the watch as a failure. */
  readonly maxLineBytes: number;
  /** Asked of the API server as `timeoutSeconds`: it ends the watch after this long, and a new one starts. */
  readonly watchSeconds: number;
  /** A watch that sends nothing for `watchSeconds` plus this long is taken as hung and started again. */
  readonly graceSeconds: number;
  /** One line per failure (the back-off included); server text in it is escaped. */
  readonly log: (message: string) => void;
}

/** A failing watch is retried after 1 s, then 2, 4, ... up to 5 minutes (retryDelay); delivered events reset it. */
export const WATCH_RETRY_FIRST_MS = 1000;
export const WATCH_RETRY_CAP_MS = 5 * 60 * 1000;

/**
 * Calls `changed` on every change to a Node, through a watch on /api/v1/nodes read by kintsugi itself rather than by
 * the client library's Watch, which reads lines with `readline` without any bound (an endless line crashes the
 * process) and drops its own timeout. Every line is bounded, a silent watch is restarted, and a failure (refused,
 * not 200, over-long or non-JSON line, an ERROR event, silence) costs one log line and a growing back-off. A watch
 * the server ends normally is started again after a second, with one more `changed` (something may have changed
 * while no watch was open). Returns the function that stops it for good, also a request still waiting for its answer.
 */
export function watchNodes(config: k8s.KubeConfig, limits: NodeWatchLimits, changed: () => void): () => void {
  let stopped = false;
  let current: { request: ClientRequest; agent: Agent | undefined } | null = null;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const again = (delayMs: number, notify: boolean) => {
    if (stopped) return;
    retry = setTimeout(() => {
      if (notify) changed();
      begin();
    }, delayMs);
  };
  // One line when the watch starts failing, a reminder at most every 5 minutes, one when it works again (outageStep).
  let outage: OutageState = REACHABLE;
  const ended = (failure: string | null, delivered: boolean) => {
    current = null;
    if (stopped) return;
    if (delivered) failures = 0;
    if (failure === null || delivered) {
      const step = outageStep(outage, "worked", Date.now());
      outage = step.state;
      if (step.notice === "back") limits.log("node watch works again");
    }
    if (failure === null) return again(WATCH_RETRY_FIRST_MS, true);
    failures++;
    const delay = retryDelay(failures, WATCH_RETRY_FIRST_MS, WATCH_RETRY_CAP_MS);
    const step = outageStep(outage, "failed", Date.now());
    outage = step.state;
    if (step.notice === "down")
      limits.log(
        `node watch failed: ${failure}; retrying in ${delay / 1000} s, backing off to ${WATCH_RETRY_CAP_MS / 60_000} minutes; further failures are not logged until it works again, with a reminder every 5 minutes`,
      );
    if (step.notice === "still-down") limits.log(`node watch is still failing (${step.state.failures} failures): ${failure}; retrying in ${delay / 1000} s`);
    again(delay, true);
  };

  // Whatever start throws (a server URL that does not parse, say) is one more failure, never an unhandled rejection.
  const begin = () => void start().catch((error: unknown) => ended(error instanceof Error ? error.message : String(error), false));
  const start = async () => {
    let init: Awaited<ReturnType<k8s.KubeConfig["applyToFetchOptions"]>>;
    try {
      init = await config.applyToFetchOptions({});
    } catch (error) {
      return ended(`no credentials: ${error instanceof Error ? error.message : String(error)}`, false);
    }
    const cluster = config.getCurrentCluster();
    if (stopped || !cluster) return ended(stopped ? null : "no current cluster", false);
    const url = new URL(`${cluster.server.replace(/\/+$/, "")}/api/v1/nodes`);
    url.searchParams.set("watch", "true");
    url.searchParams.set("allowWatchBookmarks", "true");
    url.searchParams.set("timeoutSeconds", String(limits.watchSeconds));
    const agent = init.agent as Agent | undefined;
    const headers = Object.fromEntries((init.headers as Headers).entries());
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    let delivered = false;
    let done = false;
    let request: ClientRequest | null = null;
    const finish = (failure: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(silence);
      request?.destroy();
      agent?.destroy();
      ended(failure, delivered);
    };
    const silentMs = (limits.watchSeconds + limits.graceSeconds) * 1000;
    const silence = setTimeout(() => finish(`nothing received for ${limits.watchSeconds + limits.graceSeconds} s`), silentMs);
    const answered = (res: IncomingMessage) => {
      if (res.statusCode !== 200) return finish(`HTTP ${res.statusCode} ${escapeControlCharacters(res.statusMessage ?? "")}`.trimEnd());
      const lines = new WatchLines(limits.maxLineBytes);
      res.on("data", (chunk: Buffer) => {
        silence.refresh();
        const read = lines.push(chunk);
        for (const event of read.events) {
          if (event.type === "ERROR") return finish(`the server ended the watch with an error: ${event.message}`);
          delivered = true;
          // A bookmark only says the watch is alive: no node changed.
          if (event.type !== "BOOKMARK") changed();
        }
        if (read.failure !== null) finish(read.failure);
      });
      res.on("error", (error) => finish(error.message));
      res.on("end", () => finish(null));
    };
    try {
      // Throws at once on what a hostile kubeconfig may hold (a header value node refuses, say): a failure like any.
      request = send(url, { method: "GET", headers, ...(agent && { agent }) }, answered);
    } catch (error) {
      return finish(error instanceof Error ? error.message : String(error));
    }
    request.on("error", (error) => finish(error.message));
    request.end();
    current = { request, agent };
  };

  begin();
  return () => {
    stopped = true;
    clearTimeout(retry);
    current?.request.destroy();
    current?.agent?.destroy();
    current = null;
  };
}
