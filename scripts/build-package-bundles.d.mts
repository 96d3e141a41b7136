// Types of scripts/build-package-bundles.mjs for the tests that import it.

/** Each bundle: its module under src/ and dist/ (the same path, .ts and .js), what it leaves to node. */
export declare const PACKAGE_BUNDLES: ReadonlyArray<{ readonly module: string; readonly external: readonly string[] }>;
