import assert from "node:assert/strict";

/**
 * A generous bound on one /health answer while a test's abuse runs: it catches a server whose event loop is held for
 * seconds (validation of a repeated field, a fleet-sized answer built whole), never a merely loaded machine. The
 * figures themselves (p50, p99) are bench/abuse's.
 */
export const HEALTH_BOUND_MS = 5_000;

/** How long /health took to answer, failing unless it answered 200. */
async function healthAnswerMs(url: string): Promise<number> {
  const began = performance.now();
  const res = await fetch(`${url}/health`);
  await res.arrayBuffer();
  assert.equal(res.status, 200, "/health answers 200");
  return performance.now() - began;
}

/** Asks /health once: a 200 within HEALTH_BOUND_MS. */
export async function assertQuickHealth(url: string): Promise<void> {
  const ms = await healthAnswerMs(url);
  assert.ok(ms < HEALTH_BOUND_MS, `/health answered in ${Math.round(ms)} ms, over the bound of ${HEALTH_BOUND_MS} ms`);
}
