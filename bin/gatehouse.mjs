#!/usr/bin/env node
// The `gatehouse` command (package.json `bin`, and what `npm start` runs). Gatehouse runs in this
// very process, so a SIGTERM sent to it — or to `npm start`, which passes it on — reaches
// Gatehouse, which closes its ports and commits queued writes. It runs the compiled dist/main.js
// (`npm run build`) when that is at least as new as every source file, else the TypeScript sources
// through tsx's in-process loader (a development checkout, or a build gone stale: the sources are
// what was last changed). Nothing is printed here, so an unsupported Node is refused in one line.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/main.js`;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const hasSources = existsSync(`${root}src/main.ts`);
const useBuilt = existsSync(built) && (!hasSources || statSync(built).mtimeMs >= newestSource(`${root}src`));
if (useBuilt) {
  await import(new URL('../dist/main.js', import.meta.url).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/main.ts', import.meta.url).href);
}
