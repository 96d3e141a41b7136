import { z } from "../support/zod.js";
import {
  DEFAULT_ETCD_COMPACTION_RETENTION_MS,
  DEFAULT_ETCD_CONFIG,
  ETCD_COMPACTION_RETENTION_BOUNDS_MS,
  DEFAULT_ETCD_ENDPOINTS,
  DEFAULT_ETCD_MAX_REQUEST_BYTES,
  DEFAULT_ETCD_MAX_TXN_OPS,
  DEFAULT_ETCD_PREFIX,
  DEFAULT_ETCD_TIMEOUT_MS,
  type EtcdConfig,
  type PemSource,
} from "./etcd-config.js";
import { parseGoDuration } from "./go-duration.js";
import { MAX_TIMER_SECONDS } from "./kintsugi-config.js";
import { whenClean } from "./label-selector-schema.js";

const ENDPOINT_MESSAGE = 'must be an http or https URL with a port and no path, e.g. "http://10.0.0.1:2379"';
const EXPLICIT_PORT = /^[a-z]+:\/\/[^/?#]*:\d+(?:[/?#]|$)/i;

/** An etcd client URL, kept as `scheme://host:port` (etcd3 hands the host and port to gRPC as they are). */
const endpoint = z.string().transform((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: "custom", message: ENDPOINT_MESSAGE });
    return z.NEVER;
  }
  if (url.username !== "" || url.password !== "") {
    ctx.addIssue({ code: "custom", message: "must not hold a user name or password; set etcd.username and etcd.password" });
    return z.NEVER;
  }
  const pathless = (url.pathname === "/" || url.pathname === "") && url.search === "" && url.hash === "";
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !EXPLICIT_PORT.test(text) || !pathless) {
    ctx.addIssue({ code: "custom", message: ENDPOINT_MESSAGE });
    return z.NEVER;
  }
  // URL drops a port equal to the scheme's default; gRPC has no such default, so it is written out again.
  return `${url.protocol}//${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
});

const prefix = z.string().superRefine((text, ctx) => {
  if (!text.startsWith("/") || !text.endsWith("/") || text.length < 2) {
    ctx.addIssue({ code: "custom", message: `must start and end with "/" and name something between, e.g. "${DEFAULT_ETCD_PREFIX}"` });
  } else if (/[\s\u0000-\u001f\u007f]/.test(text)) {
    ctx.addIssue({ code: "custom", message: "must not contain spaces or control characters" });
  }
});

const TIMEOUT_MESSAGE = 'must be a duration as Go writes it, with a unit, e.g. "2s" or "500ms"';

const timeout = z.string({ error: (issue) => (issue.input === undefined ? undefined : TIMEOUT_MESSAGE) }).transform((text, ctx) => {
  const ms = parseGoDuration(text);
  if (ms === null) {
    ctx.addIssue({ code: "custom", message: `${TIMEOUT_MESSAGE}, got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  if (ms < 1) {
    ctx.addIssue({ code: "custom", message: `must be at least 1ms, got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  // A timer waits at most this long; past it, every etcd call would time out at once instead of never.
  if (ms > MAX_TIMER_SECONDS * 1000) {
    ctx.addIssue({
      code: "custom",
      message: `must be at most "${MAX_TIMER_SECONDS}s" (about 24.8 days, the longest node's timers wait), got ${JSON.stringify(text)}`,
    });
    return z.NEVER;
  }
  return ms;
});

const RETENTION_MESSAGE = 'must be a duration as Go writes it, e.g. "24h" or "90m", or "0" or "off" (kintsugi does not compact)';

/** `compaction-retention`: "0" or "off" turns kintsugi's compaction off; else a duration within the bounds. */
const compactionRetention = z
  .union([z.literal(0), z.string()], { error: (issue) => (issue.input === undefined ? undefined : RETENTION_MESSAGE) })
  .transform((text, ctx) => {
    if (text === 0 || text === "off") return 0;
    const ms = parseGoDuration(text);
    if (ms === null) {
      ctx.addIssue({ code: "custom", message: `${RETENTION_MESSAGE}, got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    if (ms === 0) return 0;
    const { min, max } = ETCD_COMPACTION_RETENTION_BOUNDS_MS;
    if (ms < min || ms > max) {
      ctx.addIssue({ code: "custom", message: `must be "0" or "off", or between "5m" and "720h" (30 days), got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    return ms;
  });

const path = z.string().min(1);

// Never echoes the value: a password or a private key must not end up in a log or a terminal.
const secret = z.string({ error: (issue) => (issue.input === undefined ? undefined : "must be a string (quote it); the value is not shown") }).min(1);

/** The `etcd` section as written: exactly etcdutil's YAML keys, so sabakan's section can be copied as it is. */
export const etcdSection = z
  .strictObject({
    endpoints: z
      .array(endpoint)
      .min(1)
      .default([...DEFAULT_ETCD_ENDPOINTS]),
    prefix: prefix.default(DEFAULT_ETCD_PREFIX),
    timeout: timeout.default(DEFAULT_ETCD_TIMEOUT_MS),
    // As the etcd members are started with: kintsugi splits its writes to fit (it cannot ask etcd for them).
    "max-txn-ops": z.number().int().min(8).max(1_000_000).default(DEFAULT_ETCD_MAX_TXN_OPS),
    "max-request-bytes": z
      .number()
      .int()
      .min(64 * 1024)
      .max(2 * 1024 * 1024 * 1024)
      .default(DEFAULT_ETCD_MAX_REQUEST_BYTES),
    // kintsugi's, not etcdutil's: how much history kintsugi keeps when it compacts etcd itself.
    "compaction-retention": compactionRetention.default(DEFAULT_ETCD_COMPACTION_RETENTION_MS),
    username: z.string().min(1).optional(),
    password: secret.optional(),
    "tls-ca-file": path.optional(),
    "tls-ca": z.string().min(1).optional(),
    "tls-cert-file": path.optional(),
    "tls-cert": z.string().min(1).optional(),
    "tls-key-file": path.optional(),
    "tls-key": secret.optional(),
  })
  .superRefine((s, ctx) => {
    const problem = (key: string, message: string) => ctx.addIssue({ code: "custom", message, path: [key] });
    if (s.username !== undefined && s.password === undefined) problem("password", "is required with etcd.username");
    if (s.password !== undefined && s.username === undefined) problem("username", "is required with etcd.password");
    for (const kind of ["ca", "cert", "key"] as const) {
      if (s[`tls-${kind}-file`] !== undefined && s[`tls-${kind}`] !== undefined) {
        problem(`tls-${kind}`, `give tls-${kind}-file or tls-${kind}, not both`);
      }
    }
    const cert = s["tls-cert-file"] !== undefined || s["tls-cert"] !== undefined;
    const key = s["tls-key-file"] !== undefined || s["tls-key"] !== undefined;
    if (cert && !key) problem("tls-key-file", "is required with a client certificate (tls-cert-file or tls-cert): give its key");
    if (key && !cert) problem("tls-cert-file", "is required with a client key (tls-key-file or tls-key): give its certificate");
    const schemes = new Set(s.endpoints.map((url) => new URL(url).protocol));
    if (schemes.size > 1) problem("endpoints", "must be all http or all https, not both");
    else if (schemes.has("http:") && (cert || key || s["tls-ca-file"] !== undefined || s["tls-ca"] !== undefined)) {
      problem("endpoints", "must be https URLs when TLS keys (tls-ca-file, tls-cert-file, ...) are set");
    }
  }, whenClean);

export type EtcdSection = z.output<typeof etcdSection>;

function pem(file: string | undefined, inline: string | undefined): PemSource | null {
  if (file !== undefined) return { file };
  if (inline !== undefined) return { pem: inline };
  return null;
}

/** Renames the validated section into an EtcdConfig; no section = etcdutil's defaults with kintsugi's prefix. */
export function toEtcdConfig(section: EtcdSection | undefined): EtcdConfig {
  if (!section) return DEFAULT_ETCD_CONFIG;
  const cert = pem(section["tls-cert-file"], section["tls-cert"]);
  const key = pem(section["tls-key-file"], section["tls-key"]);
  return {
    endpoints: section.endpoints,
    prefix: section.prefix,
    timeoutMs: section.timeout,
    maxTxnOps: section["max-txn-ops"],
    maxRequestBytes: section["max-request-bytes"],
    compactionRetentionMs: section["compaction-retention"],
    auth: section.username !== undefined && section.password !== undefined ? { username: section.username, password: section.password } : null,
    tlsCa: pem(section["tls-ca-file"], section["tls-ca"]),
    tlsClient: cert && key ? { cert, key } : null,
  };
}
