import * as k8s from "./kube-client.js";
import type { KubeCallOptions } from "./ports.js";

/** The HTTP status of a failed API call, or null when the request never got an answer. */
export function statusOf(error: unknown): number | null {
  return error instanceof k8s.ApiException ? error.code : null;
}

/** The reason and message of a failed call's Status (ApiException.body is the raw text, undefined for a 401). */
export function statusOfBody(error: k8s.ApiException<unknown>): { reason: string; message: string } {
  let body: unknown = error.body;
  if (typeof error.body === "string") {
    try {
      body = JSON.parse(error.body);
    } catch {
      return { reason: "", message: error.body.trim().slice(0, 500) };
    }
  }
  const status = (typeof body === "object" && body !== null ? body : {}) as {
    reason?: unknown;
    message?: unknown;
    details?: { causes?: Array<{ message?: unknown }> };
  };
  let message = typeof status.message === "string" ? status.message : "";
  const causes = (status.details?.causes ?? []).flatMap((c) => (typeof c.message === "string" ? [c.message] : []));
  if (causes.length > 0) message += ` (${causes.join("; ")})`;
  return { reason: typeof status.reason === "string" ? status.reason : "", message };
}

/** The message of a failed call: `<operation>: <object>: HTTP <status> <reason>: <message>`. */
export function describeFailure(operation: string, object: string, error: unknown): string {
  if (error instanceof k8s.ApiException) {
    const { reason, message } = statusOfBody(error);
    return `${operation}: ${object}: HTTP ${error.code}${reason ? ` ${reason}` : ""}: ${message || "(no message)"}`;
  }
  return `${operation}: ${object}: ${error instanceof Error ? error.message : String(error)}`;
}

export function failure(operation: string, object: string, error: unknown): Error {
  return new Error(describeFailure(operation, object, error), { cause: error });
}

/** Per-request client options that hand `signal` to the HTTP request, so aborting it closes the connection. */
function abortingOn(signal: AbortSignal, base?: k8s.ConfigurationOptions): k8s.ConfigurationOptions {
  const middleware: k8s.ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new k8s.Observable(Promise.resolve(context));
    },
    post: (response) => new k8s.Observable(Promise.resolve(response)),
  };
  return { ...base, middleware: [...(base?.middleware ?? []), middleware], middlewareMergeStrategy: "append" };
}

/**
 * Runs one API request bounded by `timeoutSeconds` and by the caller's signal: when either fires, the request's
 * connection is closed and the call rejects with `timed out after N s` or `aborted`. Other failures pass unchanged.
 */
export async function boundedRequest<T>(
  timeoutSeconds: number,
  options: KubeCallOptions | undefined,
  request: (clientOptions: k8s.ConfigurationOptions) => Promise<T>,
  base?: k8s.ConfigurationOptions,
): Promise<T> {
  const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
  const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const why = () => new Error(timeout.aborted ? `timed out after ${timeoutSeconds} s` : "aborted");
  if (signal.aborted) throw why();
  try {
    return await request(abortingOn(signal, base));
  } catch (error) {
    throw signal.aborted ? why() : error;
  }
}
