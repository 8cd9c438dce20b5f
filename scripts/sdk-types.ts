// The SDK's API types (src/sdk/schema.d.ts), generated from docs/openapi.json by openapi-typescript
// with the options the console's build uses. Committed, unlike the console's copy, because src/ must
// type-check from a clean checkout (`tsc -p .`, `npm run build`) without a generation step first;
// `npm run docs` rewrites it with docs/openapi.json and test/cli-sdk.test.ts fails when it is stale.
import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = '// Generated from docs/openapi.json by scripts/sdk-types.ts (npm run docs). Do not edit by hand.\n\n';

export async function renderSdkTypes(): Promise<string> {
  const doc = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
  // A parameter with a default is optional to send, whatever `required` says (as scripts/build-web.mjs).
  const ast = await openapiTS(doc, { defaultNonNullable: false });
  return HEADER + astToString(ast);
}
