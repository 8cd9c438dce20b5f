// Runs every *.test.ts under src/ and test/ with node's built-in runner. Node 20 has no glob
// support in --test, so the files are listed here. Extra arguments are passed to node --test
// (e.g. --test-name-pattern).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));
let files = [...find('src'), ...find('test')].sort();
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f.includes(x)));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...flags, ...files],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
