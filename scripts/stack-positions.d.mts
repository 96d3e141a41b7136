// Types of scripts/stack-positions.mjs for the tests that import it.

/** Rewrites the positions in a stack trace's text that a source map covers to the TypeScript's path, line and column. */
export declare function stackPositionMapper(): (text: string) => string;
