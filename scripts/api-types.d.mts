// Types of scripts/api-types.mjs, for the TypeScript that imports it (test/cli-sdk.test.ts, write-docs.ts).
export const API_TYPES_FILES: string[];
export function renderApiTypes(): Promise<string>;
export function writeApiTypes(): Promise<string[]>;
