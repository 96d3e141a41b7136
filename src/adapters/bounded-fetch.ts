/** Raised when an answer breaks a bound; the message says which. */
export class BoundExceededError extends Error {
  override readonly name = "BoundExceededError";
}

/**
 * A `fetch` that gives up after `timeoutMs` and refuses to read more than `maxBytes` of an answer, so a slow or
 * runaway server can neither stall a poll nor exhaust kintsugi's memory. The body is read in full (bounded) and
 * handed back as a fresh Response, so callers parse it as usual.
 */
export function boundedFetch(maxBytes: number, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
    } catch (err) {
      if (signal.aborted) throw new BoundExceededError(`no answer within ${timeoutMs / 1000} s`);
      throw err;
    }
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > maxBytes) {
      await res.body?.cancel();
      throw new BoundExceededError(`the answer is ${declared} bytes, more than the ${maxBytes} allowed`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body ?? []) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          await res.body?.cancel().catch(() => undefined);
          throw new BoundExceededError(`the answer is larger than the ${maxBytes} bytes allowed`);
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof BoundExceededError) throw err;
      if (signal.aborted) throw new BoundExceededError(`the answer did not arrive within ${timeoutMs / 1000} s`);
      throw err;
    }
    return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
