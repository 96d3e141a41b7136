import * as k8s from "@kubernetes/client-node";

/**
 * Calls `changed` on every change to a Node, through a Kubernetes watch on /api/v1/nodes. The API server ends
 * watches from time to time; the watch is then started again after a second, with one more `changed` (something
 * may have changed while no watch was open). Returns the function that stops it for good.
 */
export function watchNodes(config: k8s.KubeConfig, changed: () => void): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let retry: NodeJS.Timeout | undefined;
  const start = () => {
    if (stopped) return;
    new k8s.Watch(config)
      .watch("/api/v1/nodes", {}, () => changed(), () => {
        if (!stopped) retry = setTimeout(() => {
          changed();
          start();
        }, 1000);
      })
      .then((c) => {
        controller = c;
        if (stopped) c.abort();
      })
      .catch(() => {
        if (!stopped) retry = setTimeout(start, 1000);
      });
  };
  start();
  return () => {
    stopped = true;
    clearTimeout(retry);
    controller?.abort();
  };
}
