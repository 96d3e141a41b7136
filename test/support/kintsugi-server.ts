import { join } from "node:path";
import { pino } from "pino";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../../src/config/kintsugi-config.js";
import type { AuthConfig } from "../../src/auth/access-policy.js";
import { startKintsugi, type RunningKintsugi, type StartOptions } from "../../src/main.js";
import { TEST_REPAIR_CONFIG } from "./fixtures.js";
import { tempDir } from "./temp-dir.js";

/** A GraphQL response over HTTP, kept raw so tests see exactly what a client sees. */
export interface GraphQLHttpResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly data: T | null;
  readonly errors: ReadonlyArray<{ message: string; extensions?: { type?: string; code?: string }; path?: string[] }> | undefined;
}

export interface TestKintsugi extends RunningKintsugi {
  readonly databasePath: string;
  /** POSTs a document to /graphql as JSON. */
  gql<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<GraphQLHttpResponse<T>>;
  /** Closes the server and removes its temporary directory. */
  dispose(): Promise<void>;
  /**
   * Closes this server and starts another on the same database (only one kintsugi may hold it at a time) with
   * these overrides and options; disposing of the new one removes the directory.
   */
  restart(overrides?: Partial<KintsugiConfig>, options?: StartOptions): Promise<TestKintsugi>;
}

/**
 * What test servers allow unless a test says otherwise: anonymous clients are admins, so the tests of a feature
 * use it without tokens. Access control has its own tests (test/auth), which pass `auth` themselves.
 */
export const ANONYMOUS_ADMIN: AuthConfig = { anonymous: "admin", tokens: [], allowedOrigins: [], allowedHosts: [] };

/**
 * Starts kintsugi on 127.0.0.1 with an ephemeral port and a database file in a fresh temporary directory, which
 * `dispose` removes (or `databasePath`, a file in a directory of the caller's, which it keeps), with the test repair
 * procedures unless overridden. The runner is not started unless `startRunner` is true: API tests place entries where
 * they want them.
 */
export async function startTestKintsugi(
  overrides: Partial<KintsugiConfig> = {},
  options: StartOptions & { databasePath?: string } = {},
): Promise<TestKintsugi> {
  // A database the caller names is in a directory the caller owns (and removes).
  if (options.databasePath !== undefined) return startIn({ remove: () => {} }, options.databasePath, overrides, options);
  const dir = tempDir();
  return startIn(dir, join(dir.path, "kintsugi.db"), overrides, options);
}

async function startIn(dir: { remove: () => void }, databasePath: string, overrides: Partial<KintsugiConfig>, options: StartOptions): Promise<TestKintsugi> {
  const config: KintsugiConfig = {
    ...DEFAULT_CONFIG,
    listen: { host: "127.0.0.1", port: 0 },
    database: databasePath,
    repair: TEST_REPAIR_CONFIG,
    auth: ANONYMOUS_ADMIN,
    ...overrides,
  };
  // A start refused (a test of the refusal, or a restart's) leaves no server to dispose of: the directory goes now.
  const running = await startKintsugi(config, { logger: pino({ level: "silent" }), startRunner: false, ...options }).catch((err: unknown) => {
    dir.remove();
    throw err;
  });
  return {
    ...running,
    databasePath,
    async gql(query, variables) {
      const res = await fetch(`${running.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: any; errors?: any };
      return { status: res.status, data: body.data ?? null, errors: body.errors };
    },
    async dispose() {
      await running.close();
      dir.remove();
    },
    async restart(overrides = {}, options = {}) {
      await running.close();
      return startIn(dir, databasePath, overrides, options);
    },
  };
}
