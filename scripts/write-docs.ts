// Regenerates the documents derived from code: docs/openapi.json and docs/events.md.
import { writeFileSync } from 'node:fs';
import { renderEventDocs } from './event-docs.js';
import { generateOpenApi } from './openapi-document.js';

writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  `${JSON.stringify(await generateOpenApi(), null, 2)}\n`,
);
writeFileSync(new URL('../docs/events.md', import.meta.url), renderEventDocs());
process.stdout.write('wrote docs/openapi.json and docs/events.md\n');
