import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";

// Runs the CLI's on-demand bundles (scripts/build-cli.mjs) with V8's code cache. Node 20 compiles every ES module from
// its source at each start (module.enableCompileCache is node 22), and for a bundle of the config's schemas (zod and
// yaml, about 650 KiB) that compile, and the lazy compiles of what its top level runs, cost a command about half as
// much CPU as node's own start. A classic script can be given the code V8 compiled at build time: so each bundle is a
// CommonJS body run here in a function wrapper, with the cache the build wrote beside it.
//
// V8 checks a cache against its own version and flags (a cache made under other node options is rejected, and V8 then
// compiles from the source, as without one) but of the source only its length: so the cache file starts with the
// sha256 of the source it was made from, and a cache of another source is not given to V8 at all.
//
// A script's own import() needs an experimental vm option in node 20 (it warns, or wants a flag), so the build has the
// bundles call the wrapper's import function instead, and this ES module imports for them. The modules the bundles
// share with the front (cli-error.js: one CliError class) are handed in as the front loaded them, not require()d.
// A CommonJS body has no import.meta: the build makes the import.meta of each of kintsugi's modules a call of the
// wrapper's function with the module's path under dist/, which returns what that module's file in dist/ has.

/** The identifier the bundles' `import.meta.url` is defined as (scripts/build-cli.mjs): a parameter of the wrapper. */
export const IMPORT_META_URL = "__kintsugiImportMetaUrl";
/** The function the bundles' import() calls are made to call (scripts/build-cli.mjs): a parameter of the wrapper. */
export const DYNAMIC_IMPORT = "__kintsugiImport";

/** The function each of kintsugi's modules' import.meta is made a call of (scripts/build-cli.mjs): a parameter too. */
export const IMPORT_META_OF = "__kintsugiImportMetaOf";

const PARAMETERS = ["exports", "require", "module", "__filename", "__dirname", IMPORT_META_URL, DYNAMIC_IMPORT, IMPORT_META_OF];

/** What kintsugi's modules use of their import.meta. */
interface ModuleMeta {
  readonly url: string;
  readonly filename: string;
  readonly dirname: string;
  resolve(specifier: string): string;
}

/**
 * The import.meta of the module at `path` under the folder of `bundle`: a relative specifier resolves from the module's
 * URL, a package's from this loader's (the same node_modules).
 */
function importMetaOf(bundle: string): (path: string) => ModuleMeta {
  const metas = new Map<string, ModuleMeta>();
  return (path) => {
    let meta = metas.get(path);
    if (meta === undefined) {
      const filename = join(dirname(bundle), path);
      const url = pathToFileURL(filename).href;
      const resolve = (specifier: string): string =>
        specifier.startsWith(".") || specifier.startsWith("/") ? new URL(specifier, url).href : import.meta.resolve(specifier);
      meta = { url, filename, dirname: dirname(filename), resolve };
      metas.set(path, meta);
    }
    return meta;
  };
}

/** Modules a bundle imports from outside it that it must share with the front, by the specifier it requires them by. */
export type SharedModules = Readonly<Record<string, unknown>>;
const DIGEST_BYTES = 32;

/**
 * What became of a bundle's code cache: V8 took it, or rejected it (another node or other V8 flags), or there was no
 * cache file, or it was made from another source.
 */
export type CodeCacheUse = "accepted" | "rejected" | "absent" | "stale";

export interface LoadedBundle {
  readonly exports: Readonly<Record<string, unknown>>;
  readonly cache: CodeCacheUse;
}

/** Where the code cache of the bundle `file` is. */
export function codeCacheFileOf(file: string): string {
  return `${file}.v8cache`;
}

const digestOf = (source: string): Buffer => createHash("sha256").update(source).digest();

/** The cache for `source` in the cache file of `file`, without its digest, or why there is none. */
function cacheFor(file: string, source: string): { readonly data: Buffer } | { readonly use: "absent" | "stale" } {
  let stored: Buffer;
  try {
    stored = readFileSync(codeCacheFileOf(file));
  } catch {
    return { use: "absent" };
  }
  if (stored.length <= DIGEST_BYTES || !stored.subarray(0, DIGEST_BYTES).equals(digestOf(source))) return { use: "stale" };
  return { data: stored.subarray(DIGEST_BYTES) };
}

function scriptOf(file: string, source: string, cachedData: Buffer | undefined): Script {
  // The wrapper opens on the source's first line, so that the line numbers of a stack trace are the file's.
  return new Script(`(function (${PARAMETERS.join(", ")}) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
}

/** Runs the wrapped bundle as node runs a CommonJS module: its `exports`. */
function run(script: Script, file: string, shared: SharedModules): Record<string, unknown> {
  const module: { exports: Record<string, unknown> } = { exports: {} };
  const url = pathToFileURL(file).href;
  const nodeRequire = createRequire(file);
  const require = (id: string): unknown => (Object.hasOwn(shared, id) ? shared[id] : nodeRequire(id));
  // What the bundle loads on demand, relative to the bundle's file as its import() would have been.
  const dynamicImport = (specifier: string): Promise<unknown> => import(specifier.startsWith(".") ? new URL(specifier, url).href : specifier);
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body.call(module.exports, module.exports, require, module, file, dirname(file), url, dynamicImport, importMetaOf(file));
  return module.exports;
}

/** Runs the CommonJS bundle `file` (an absolute path), with its code cache when V8 takes it. */
export function loadBundle(file: string, shared: SharedModules = {}): LoadedBundle {
  const source = readFileSync(file, "utf8");
  const cached = cacheFor(file, source);
  const script = scriptOf(file, source, "data" in cached ? cached.data : undefined);
  const cache: CodeCacheUse = "use" in cached ? cached.use : script.cachedDataRejected === true ? "rejected" : "accepted";
  return { exports: run(script, file, shared), cache };
}

/**
 * Writes the code cache of the bundle `file` for the node and flags of this process, after running the bundle's top
 * level, so that the functions it compiles (the schemas it builds) are in the cache too. Returns the names it exports.
 */
export function writeCodeCache(file: string, shared: SharedModules = {}): string[] {
  const source = readFileSync(file, "utf8");
  const script = scriptOf(file, source, undefined);
  const exported = Object.keys(run(script, file, shared));
  saveCodeCache(file, source, script);
  return exported;
}

function saveCodeCache(file: string, source: string, script: Script): void {
  const target = codeCacheFileOf(file);
  writeFileSync(`${target}.tmp`, Buffer.concat([digestOf(source), script.createCachedData()]));
  renameSync(`${target}.tmp`, target);
}
