// Runs the console's browser tests (web/e2e, Playwright), then every *.test.ts under src/ and test/
// with node's built-in runner. Node 20 has no glob support in --test, so the files are listed here.
// Extra arguments are passed to node --test (e.g. --test-name-pattern); `npm test web/e2e` runs
// only the browser tests, `npm test web/e2e/audit.spec.ts` one spec.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const CHROMIUM = '/usr/bin/chromium';
const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));

// The console's browser tests (Playwright, web/e2e) run first, so node's summary stays the last
// lines. They run with no filter or with a filter naming web/e2e; without Debian's chromium they
// fail under CI and are skipped, loudly, elsewhere.
let browserStatus = 0;
if (filters.length === 0 || filters.some((x) => 'web/e2e/'.includes(x) || x.startsWith('web/'))) {
  if (!existsSync(CHROMIUM) && process.env.CI !== 'true') {
    console.log(`# browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
  } else {
    const specs = filters.filter((x) => x.startsWith('web/e2e/') && x !== 'web/e2e/');
    const pw = spawnSync(
      join('node_modules', '.bin', 'playwright'),
      ['test', '-c', 'web/playwright.config.ts', ...specs],
      {
        stdio: 'inherit',
        env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      },
    );
    browserStatus = pw.status ?? 1;
  }
  if (filters.length > 0 && filters.every((x) => x.startsWith('web/'))) process.exit(browserStatus);
}

let files = [...find('src'), ...find('test')].sort();
// With GATEHOUSE_TEST_SKIPS_FILE set (CI), a second reporter writes the number of skipped and todo
// tests there, whatever the first reporter prints; the first stays spec on every Node version.
const skipsFile = process.env.GATEHOUSE_TEST_SKIPS_FILE;
const reporters = skipsFile
  ? ['--test-reporter=spec', '--test-reporter-destination=stdout'].concat([
      '--test-reporter=./scripts/count-skips.mjs',
      `--test-reporter-destination=${skipsFile}`,
    ])
  : [];
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f.includes(x)));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...reporters, ...flags, ...files],
  {
    stdio: 'inherit',
  },
);
process.exit(browserStatus || (result.status ?? 1));
