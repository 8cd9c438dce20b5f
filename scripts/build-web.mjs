// Builds the web console into web/dist: API types from docs/openapi.json (scripts/api-types.mjs,
// which also writes the SDK's, so both exist before any type check), then Vite. With
// --if-stale (what `npm start` and `npm test` use) it does nothing when the inputs have not changed
// since the last build, and a failure only warns: the API still starts without its console.
// Prints the gzipped size of the JavaScript the first page load needs (target: < 300 KB).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { writeApiTypes } from './api-types.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const dist = join(web, 'dist');
const stampFile = join(dist, '.build-inputs');
const ifStale = process.argv.includes('--if-stale');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

/** A hash of everything the build reads, so a stale dist is rebuilt and a fresh one is not. */
function inputsHash() {
  const hash = createHash('sha256');
  const inputs = [
    ...files(join(web, 'src')).filter((f) => !f.endsWith('schema.d.ts')),
    // The console is built on the SDK (web/vite.config.ts maps gatehouse/sdk to src/sdk).
    ...files(join(root, 'src', 'sdk')).filter((f) => !f.endsWith('schema.d.ts')),
    join(web, 'index.html'),
    join(web, 'vite.config.ts'),
    join(root, 'docs', 'openapi.json'),
    join(root, 'package-lock.json'),
  ].sort();
  for (const f of inputs) hash.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex');
}

function run(cmd, args) {
  const r = spawnSync(join(root, 'node_modules', '.bin', cmd), args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
}

/** Gzipped bytes of the entry chunk and everything it imports statically (lazy chunks excluded). */
function firstLoadReport() {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const k of manifest[key]?.imports ?? []) visit(k);
  };
  visit('index.html');
  const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  const first = [...seen].map((k) => manifest[k].file);
  const firstJs = first.reduce((n, f) => n + gz(f), 0);
  const lazyJs = Object.values(manifest)
    .filter((c) => c.file.endsWith('.js') && !first.includes(c.file))
    .reduce((n, c) => n + gz(c.file), 0);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `web console: first load ${kb(firstJs)} of gzipped JS; ${kb(lazyJs)} more loaded lazily (recording player)`,
  );
}

try {
  await writeApiTypes();
} catch (e) {
  if (!ifStale) throw e;
  console.warn(`API types not written: ${e.message}`);
}
if (ifStale && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === inputsHash()) process.exit(0);
try {
  const started = Date.now();
  run('vite', ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']);
  writeFileSync(stampFile, inputsHash());
  console.log(`web console built into web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  firstLoadReport();
} catch (e) {
  if (!ifStale) throw e;
  console.warn(`web console not built: ${e.message}; the API starts without it (run npm run web:build)`);
}
