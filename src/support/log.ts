import type { Logger } from "pino";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * kintsugi's one logging interface: where a part (the runner's workers, the leader election, the etcd store) reports
 * what an operator should know, as a message and structured fields. The server hands each part its pino logger
 * through `pinoLog`; tests hand a recorder (`logTo`) or SILENT_LOG.
 */
export interface Log {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A Log that hands every line to `write`, with its level and its fields (an empty object for none). */
export function logTo(write: (level: LogLevel, message: string, fields: LogFields) => void): Log {
  return {
    debug: (message, fields) => write("debug", message, fields ?? {}),
    info: (message, fields) => write("info", message, fields ?? {}),
    warn: (message, fields) => write("warn", message, fields ?? {}),
    error: (message, fields) => write("error", message, fields ?? {}),
  };
}

/** A Log that adds `fields` to every line it hands `log` (a line's own fields win). */
export function withFields(log: Log, fields: LogFields): Log {
  return logTo((level, message, own) => log[level](message, { ...fields, ...own }));
}

/** A Log over a pino logger (pino takes the fields first). */
export function pinoLog(logger: Logger): Log {
  return logTo((level, message, fields) => logger[level](fields, message));
}

/** For callers that pass no log. */
export const SILENT_LOG: Log = logTo(() => undefined);
