import { Writable } from "node:stream";
import { pino, type Logger } from "pino";

/** One parsed pino record. */
export interface LogRecord {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A pino logger at `level` whose records are kept, parsed, in `logged`: for a test that reads what a server said. */
export function keptLogger(level: string): { logger: Logger; logged: LogRecord[] } {
  const logged: LogRecord[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line !== "") logged.push(JSON.parse(line) as LogRecord);
      done();
    },
  });
  return { logger: pino({ level }, sink), logged };
}
