// Types of scripts/test-tmpdir.mjs, for its test (test/support-tests/test-tmpdir.test.ts).
export declare const TEST_TMPDIR_ENV: string;
export declare const RAM_PARENT: string;
export declare const RAM_TMP_MIN_BYTES: number;
export declare function testTmpDir(options?: { chosen?: string; ram?: string; minBytes?: number }): { dir: string | null; why: string };
