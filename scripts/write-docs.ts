// Regenerates the documents derived from code: docs/openapi.json, docs/events.md, and from the new
// docs/openapi.json the API's types (src/sdk/schema.d.ts, web/src/api/schema.d.ts; not committed).
import { writeFileSync } from 'node:fs';
import { writeApiTypes } from './api-types.mjs';
import { renderEventDocs } from './event-docs.js';
import { generateOpenApi } from './openapi-document.js';

writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  `${JSON.stringify(await generateOpenApi(), null, 2)}\n`,
);
writeFileSync(new URL('../docs/events.md', import.meta.url), renderEventDocs());
await writeApiTypes();
process.stdout.write('wrote docs/openapi.json, docs/events.md and the API types\n');
