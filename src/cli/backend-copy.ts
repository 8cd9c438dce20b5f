// `gatehouse backend copy --from URL --to URL [--force]`: moves the state of one backend into another,
// as an embedded install (sqlite://./data/state.db) grows into the production topology (etcd://…).
// Exit codes: 0 copied and verified, 1 refused or failed, 2 bad usage; every error is one line.
//
// Items are copied with their expiry and without their revision (revisions belong to the target).
// Leases under locks/ are not copied: they say which process runs a singleton job or holds the store,
// and a copied one would make the target look in use by a process that never touched it. The end
// check reads the whole target back and compares every copied key and value, not just a count.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runningInstances } from '../backend/instance-lease.js';
import { leaseKey } from '../backend/lease.js';
import { isEmbeddedBackend, openBackend, sqliteBackendPath } from '../backend/open.js';
import type { Backend, Item } from '../backend/types.js';
import { ConfigError } from '../config/load.js';
import { type Output, processOutput } from './output.js';

export const BACKEND_USAGE = `usage: gatehouse backend copy --from URL --to URL [--force] [--data-dir DIR]

Copies every item of the state backend --from into --to (sqlite://FILE, etcd://h1:p1,h2:p2,…[?prefix=…],
postgres://…), with a progress line, then reads --to back and checks every key and value.
Refuses a target that already holds items unless --force, and a source that a running Gatehouse uses
(its writes during the copy would be lost) unless --force. Sealed values (webhook secrets, server
keys, the user CA) are copied sealed: give the new instances the same key (GATEHOUSE_SEAL_KEY_FILE,
by default <data dir>/webhook-secret.key of the old install).`;

const PAGE = 500;
const PARALLEL = 16;
const LOCKS = leaseKey('');

/** Every live item, page by page (the key after the last one starts the next page). */
async function* allItems(backend: Backend): AsyncGenerator<Item[]> {
  let startKey: string | undefined;
  for (;;) {
    const page = await backend.getRange('', { limit: PAGE, ...(startKey === undefined ? {} : { startKey }) });
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    startKey = `${(page[page.length - 1] as Item).key}\u0000`;
  }
}

/** Runs `gatehouse backend <argv…>` and answers the exit code. */
export async function backendCommand(argv: string[], out: Output = processOutput): Promise<number> {
  const usageError = (message: string) => {
    out.stderr(`gatehouse: ${message}\n${BACKEND_USAGE}\n`);
    return 2;
  };
  let values: ReturnType<typeof parseFlags>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parseFlags(argv));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    out.stdout(`${BACKEND_USAGE}\n`);
    return 0;
  }
  if (positionals[0] !== 'copy' || positionals.length > 1) {
    return usageError(
      positionals[0] === undefined ? 'backend needs a subcommand' : `unknown: ${positionals.join(' ')}`,
    );
  }
  if (!values.from || !values.to) return usageError('copy needs both --from and --to');
  if (values.from === values.to) return usageError('--from and --to name the same store');

  const dataDir = resolve(values['data-dir'] ?? './data');
  let from: Backend | undefined;
  let to: Backend | undefined;
  try {
    // Opening a SQLite file that is not there would make an empty one and copy nothing, quietly.
    if (isEmbeddedBackend(values.from) && !existsSync(sqliteBackendPath(values.from, dataDir))) {
      out.stderr(`gatehouse: --from: no state store at ${sqliteBackendPath(values.from, dataDir)}\n`);
      return 1;
    }
    from = openBackend(values.from, { dataDir, synchronous: 'FULL' });
    to = openBackend(values.to, { dataDir, synchronous: 'NORMAL' });
    return await copy(from, to, { force: values.force === true, out });
  } catch (e) {
    // ConfigError messages never echo a URL (it may carry a password).
    out.stderr(`gatehouse: backend copy failed: ${(e as Error).message}\n`);
    return e instanceof ConfigError ? 2 : 1;
  } finally {
    await from?.close().catch(() => undefined);
    await to?.close().catch(() => undefined);
  }
}

async function copy(from: Backend, to: Backend, opts: { force: boolean; out: Output }): Promise<number> {
  const { out } = opts;
  await Promise.all([from.ping(), to.ping()]);
  const users = await runningInstances(from);
  if (users.length > 0 && !opts.force) {
    out.stderr(
      `gatehouse: refusing to copy: the source is in use by ${users.map((u) => u.holder).join(', ')}; stop it first (its writes during the copy would be lost), or pass --force\n`,
    );
    return 1;
  }
  const existing = (await to.getRange('', { limit: 2 })).filter((i) => !i.key.startsWith(LOCKS));
  if (existing.length > 0 && !opts.force) {
    out.stderr(
      `gatehouse: refusing to copy: the target already holds items (first: ${existing[0]?.key}); copy into an empty store, or pass --force to write over what it holds\n`,
    );
    return 1;
  }

  const copied = new Map<string, string>();
  const started = Date.now();
  let lastLine = 0;
  const progress = (final: boolean) => {
    const now = Date.now();
    if (!final && now - lastLine < 1000) return;
    lastLine = now;
    const rate = Math.round(copied.size / Math.max((now - started) / 1000, 0.001));
    out.stderr(`copied ${copied.size} items (${rate}/s)${final ? '' : '…'}\n`);
  };
  for await (const page of allItems(from)) {
    const items = page.filter(
      (i) => !i.key.startsWith(LOCKS) && (i.expiresAt === undefined || i.expiresAt > Date.now()),
    );
    for (let at = 0; at < items.length; at += PARALLEL) {
      await Promise.all(
        items.slice(at, at + PARALLEL).map(async (item) => {
          await to.put(item.key, item.value, item.expiresAt === undefined ? {} : { expiresAt: item.expiresAt });
          copied.set(item.key, item.value);
        }),
      );
    }
    progress(false);
  }
  progress(true);

  // The check: every copied key is in the target with the same value (an item that expired since it
  // was copied is not a loss).
  let found = 0;
  const wrong: string[] = [];
  for await (const page of allItems(to)) {
    for (const item of page) {
      const value = copied.get(item.key);
      if (value === undefined) continue;
      found += 1;
      if (value !== item.value) wrong.push(item.key);
    }
  }
  const missing = copied.size - found;
  if (wrong.length > 0 || missing > 0) {
    out.stderr(
      `gatehouse: check failed: ${missing} copied item(s) missing from the target, ${wrong.length} with another value${wrong.length ? ` (first: ${wrong[0]})` : ''}\n`,
    );
    return 1;
  }
  out.stdout(
    `Copied ${copied.size} items in ${((Date.now() - started) / 1000).toFixed(1)} s; the target holds all ${found} with the same values.\n` +
      'Start the new instances with GATEHOUSE_BACKEND_URL set to the target and the old install’s seal key (GATEHOUSE_SEAL_KEY_FILE=<old data dir>/webhook-secret.key).\n',
  );
  return 0;
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'data-dir': { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
