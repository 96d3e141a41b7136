/** How the etcd store reports what an operator should know (the wiring passes its pino logger through this). */
export type StoreLog = (level: "debug" | "info" | "warn" | "error", message: string, fields: Readonly<Record<string, unknown>>) => void;

/** For callers that pass no log. */
export const SILENT_LOG: StoreLog = () => {};
