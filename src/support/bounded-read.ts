import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** How much of a file named in a config or on the command line kintsugi reads at most: PEM, tokens, templates. */
export const MAX_NAMED_FILE_BYTES = 16 * 1024 * 1024;

/** A file over the bound of {@link readFileBounded}; `code` is `EFBIG`, as node's errors of reading carry a code. */
export class FileTooLargeError extends Error {
  override readonly name = "FileTooLargeError";
  readonly code = "EFBIG";
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
  }
}

/**
 * The bytes of the file at `path`, read up to `maxBytes`: a file past it (or a device that never ends, /dev/zero) is
 * refused with {@link FileTooLargeError} after reading at most one byte more, never read whole into memory. Other
 * failures are node's own errors (ENOENT, EACCES, EISDIR), for the caller's words.
 */
export function readFileBounded(path: string, maxBytes = MAX_NAMED_FILE_BYTES): Buffer {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" });
    if (stat.isFile() && stat.size > maxBytes) throw new FileTooLargeError(maxBytes);
    // A regular file is read to its size; a pipe or device in chunks, until it ends or passes the bound.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) throw new FileTooLargeError(maxBytes);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The text (UTF-8) of the file at `path`, read as {@link readFileBounded} reads it. */
export function readTextBounded(path: string, maxBytes = MAX_NAMED_FILE_BYTES): string {
  return readFileBounded(path, maxBytes).toString("utf8");
}
