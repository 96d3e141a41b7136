// Types of scripts/test-processes.mjs, for its test (test/support-tests/test-processes.test.ts).
export declare const SOURCE_ENV: string;
export declare const PROCESS_PER_FILE_ENV: string;
export declare const MAX_FILES_IN_PROCESS: number;
export declare const MAX_E2E_FILES_IN_PROCESS: number;
export declare function ownProcess(file: string): boolean;
export declare function planProcesses(files: readonly string[], alone?: boolean): Array<{ folder?: string; e2e?: boolean; files: string[] }>;
export declare function writeTogetherEntry(folder: string, n: number, files: readonly string[], e2e?: boolean): string;
export declare function togetherLabel(folder: string, n: number, count: number, e2e?: boolean): string;
