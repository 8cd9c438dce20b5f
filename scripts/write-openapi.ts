// Writes docs/openapi.json from the route schemas (npm run openapi). A test fails when the
// committed copy differs from what the code generates.
import { writeFileSync } from 'node:fs';
import { generateOpenApi } from './openapi-document.js';

const doc = await generateOpenApi();
writeFileSync(new URL('../docs/openapi.json', import.meta.url), `${JSON.stringify(doc, null, 2)}\n`);
process.stdout.write('wrote docs/openapi.json\n');
