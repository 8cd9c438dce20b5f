// Regenerates the documents derived from code: docs/openapi.json, docs/events.md and the SDK's types
// (src/sdk/schema.d.ts, from docs/openapi.json).
import { writeFileSync } from 'node:fs';
import { renderEventDocs } from './event-docs.js';
import { generateOpenApi } from './openapi-document.js';
import { renderSdkTypes } from './sdk-types.js';

writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  `${JSON.stringify(await generateOpenApi(), null, 2)}\n`,
);
writeFileSync(new URL('../docs/events.md', import.meta.url), renderEventDocs());
writeFileSync(new URL('../src/sdk/schema.d.ts', import.meta.url), await renderSdkTypes());
process.stdout.write('wrote docs/openapi.json, docs/events.md and src/sdk/schema.d.ts\n');
