export declare const BUILD_INPUTS: string[];
export declare const BUILD_OUTPUTS: string[];
export declare const STAMP_FILE: string;
export declare function fingerprint(root: string): string;
export declare function buildFreshness(
  root: string,
): { fresh: true } | { fresh: false; reason: string };
export declare function clearStamp(root: string): void;
export declare function writeStamp(root: string, print: string): void;
