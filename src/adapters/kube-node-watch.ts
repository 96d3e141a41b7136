import type { Agent } from "node:http";
import type { RequestOptions } from "node:https";
import * as k8s from "@kubernetes/client-node";
import { retryDelay } from "../domain/outage-notice.js";

type FetchOptions = Awaited<ReturnType<k8s.KubeConfig["applyToFetchOptions"]>>;

/**
 * The same kubeconfig, remembering the HTTP agent of the latest watch request it prepared (watches run one after
 * the other). The library's Watch hands out its AbortController only once the server has answered, so a watch
 * whose server never answers could not be ended; destroying its agent closes its connection, and the process can
 * exit.
 */
class AgentTrackingKubeConfig extends k8s.KubeConfig {
  private agent: Agent | null = null;
  private closed = false;

  constructor(from: k8s.KubeConfig) {
    super();
    this.loadFromOptions({ clusters: from.clusters, contexts: from.contexts, users: from.users, currentContext: from.currentContext });
  }

  override async applyToFetchOptions(opts: RequestOptions): Promise<FetchOptions> {
    const init = await super.applyToFetchOptions(opts);
    if (this.closed) throw new Error("the node watch was stopped");
    this.agent = (init.agent as Agent | undefined) ?? null;
    return init;
  }

  /** Closes the latest watch's connection, open or still connecting; no more are prepared. */
  close(): void {
    this.closed = true;
    this.agent?.destroy();
    this.agent = null;
  }
}

/** The first and the longest wait before a node watch is started again after it failed. */
export const WATCH_RETRY_FIRST_MS = 1000;
export const WATCH_RETRY_CAP_MS = 30_000;

/**
 * Calls `changed` on every change to a Node, through a Kubernetes watch on /api/v1/nodes. The API server ends
 * watches from time to time; the watch is then started again after a second, with one more `changed` (something
 * may have changed while no watch was open). A watch that fails (refused, broken, ended with an error) is started
 * again after a wait that doubles up to 30 s (retryDelay), so an API server that is down is not asked every second
 * and the loops `changed` wakes do not fail every second; an event resets the wait. Returns the function that stops
 * it for good, which also ends a watch request still waiting for the server's answer.
 */
export function watchNodes(config: k8s.KubeConfig, changed: () => void): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  const options = new AgentTrackingKubeConfig(config);
  const again = (failed: boolean, notify: boolean) => {
    if (stopped) return;
    failures = failed ? failures + 1 : 0;
    retry = setTimeout(() => {
      if (notify) changed();
      start();
    }, retryDelay(failures, WATCH_RETRY_FIRST_MS, WATCH_RETRY_CAP_MS));
  };
  const start = () => {
    if (stopped) return;
    new k8s.Watch(options)
      .watch("/api/v1/nodes", {}, () => {
        failures = 0;
        changed();
      }, (err: unknown) => again(err !== null && err !== undefined, true))
      .then((c) => {
        controller = c;
        if (stopped) c.abort();
      })
      .catch(() => again(true, false));
  };
  start();
  return () => {
    stopped = true;
    clearTimeout(retry);
    controller?.abort();
    options.close();
  };
}
