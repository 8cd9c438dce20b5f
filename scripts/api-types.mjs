// The API's TypeScript types, generated from docs/openapi.json by openapi-typescript: the SDK's
// (src/sdk/schema.d.ts, what gatehouse/sdk exports) and the console's (web/src/api/schema.d.ts).
// Neither is committed, so no copy can go stale: `npm install` (prepare), `npm run build`, `npm test`
// and scripts/build-web.mjs (so `npm start`, `npm run typecheck` and .ci/run) write them before
// anything reads them. Each file's first line carries a hash of its inputs, so a file that matches
// docs/openapi.json is left alone and the step costs nothing when the API has not changed.
// `node scripts/api-types.mjs` writes them; without openapi-typescript (a production install) it
// only warns, since nothing at run time reads the types.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
export const API_TYPES_FILES = ['src/sdk/schema.d.ts', 'web/src/api/schema.d.ts'];

/** The first line of a generated file: what it came from and a hash of that, to tell a stale one. */
function headerFor(openapi) {
  const version = createRequire(import.meta.url)('openapi-typescript/package.json').version;
  const hash = createHash('sha256').update(`openapi-typescript ${version}\0`).update(openapi).digest('hex');
  return `// Generated from docs/openapi.json (sha256 ${hash.slice(0, 16)}) by scripts/api-types.mjs. Do not edit.\n`;
}

/** The types of docs/openapi.json as it is now, header first. */
export async function renderApiTypes() {
  const openapi = readFileSync(new URL('docs/openapi.json', root), 'utf8');
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  // A parameter with a default is optional to send, whatever `required` says.
  const ast = await openapiTS(JSON.parse(openapi), { defaultNonNullable: false });
  return `${headerFor(openapi)}\n${astToString(ast)}`;
}

/** Writes every stale or missing types file; returns the ones written. */
export async function writeApiTypes() {
  const header = headerFor(readFileSync(new URL('docs/openapi.json', root), 'utf8'));
  const stale = API_TYPES_FILES.filter((f) => {
    const url = new URL(f, root);
    return !existsSync(url) || !readFileSync(url, 'utf8').startsWith(header);
  });
  if (stale.length === 0) return [];
  const text = await renderApiTypes();
  for (const f of stale) writeFileSync(new URL(f, root), text);
  return stale;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const written = await writeApiTypes();
    if (written.length > 0) console.log(`API types written from docs/openapi.json: ${written.join(', ')}`);
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'MODULE_NOT_FOUND') throw e;
    console.warn(`API types not written (${e.message}); install the dev dependencies to type-check`);
  }
}
