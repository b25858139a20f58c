/** Types of scripts/fresh-build.mjs (plain JavaScript: it runs before anything is built). */
export declare const BUNDLE: string;
export declare const BUILD_INPUTS: readonly string[];
export declare function newestFile(path: string): { path: string; mtimeMs: number } | undefined;
export declare function staleBuildReason(bundle: string, inputs: readonly string[]): string | undefined;
