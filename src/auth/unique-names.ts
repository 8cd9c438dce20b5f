// Names of users, roles, agents, resources (per kind) and webhooks are unique regardless of case. Beside
// each record's exact-name index key, which lookups and role resolution use, sits a folded-name key
// (records.ts) that only guards uniqueness: written and removed with the record in one atomic write,
// and backfilled on start for records written before it existed.
import type { CachedItem } from '../backend/cache.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { CommitHook, StateStore } from '../backend/state.js';
import { BackendError, type Condition, type Operation } from '../backend/types.js';
import { keys, prefixes } from './records.js';

type Ref = { ref: string };

/** [foldedKey] if this record holds it, else []: after a backfill collision only one record does. */
export function heldFoldedKey(state: Pick<StateStore, 'get'>, foldedKey: string, recordKey: string): string[] {
  return state.get<Ref>(foldedKey)?.value.ref === recordKey ? [foldedKey] : [];
}

/**
 * The 409 details for a write guarded by both name keys (for translateConflicts). A name taken in
 * another case names the record that holds it, so the caller sees what they collided with.
 */
export function nameConflicts(
  state: Pick<StateStore, 'get'>,
  what: string,
  name: string,
  index: { exact: string; folded: string },
): Record<string, string> {
  const ref = state.get<Ref>(index.folded)?.value.ref;
  const existing = ref === undefined ? undefined : state.get<{ name: string }>(ref)?.value.name;
  return {
    [index.exact]: `${what} named ${JSON.stringify(name)} already exists`,
    [index.folded]:
      existing === undefined || existing === name
        ? `${what} named ${JSON.stringify(name)} already exists`
        : `${what} named ${JSON.stringify(existing)} already exists; names are unique regardless of case`,
  };
}

/** Inserts a record under both its name keys; a name taken (in any case) is a 409 that says by what. */
export function insertNamed(
  state: Pick<StateStore, 'get' | 'insert'>,
  what: string,
  key: string,
  record: { name: string },
  index: { exact: string; folded: string },
  hook: CommitHook = {},
): Promise<void> {
  return translateConflicts(
    () => state.insert(key, record, { indexKeys: [index.exact, index.folded], ...hook }),
    nameConflicts(state, what, record.name, index),
  );
}

/**
 * The index keys a rename adds and removes. A change of case alone keeps the folded key (the record
 * still holds it); a folded key held by another record (an old collision) is never removed.
 */
export function renameIndexKeys(
  state: Pick<StateStore, 'get'>,
  recordKey: string,
  before: { exact: string; folded: string },
  after: { exact: string; folded: string },
): { addIndexKeys: string[]; removeIndexKeys: string[] } {
  const exactMoves = before.exact !== after.exact;
  const foldedMoves = before.folded !== after.folded;
  return {
    addIndexKeys: [...(exactMoves ? [after.exact] : []), ...(foldedMoves ? [after.folded] : [])],
    removeIndexKeys: [
      ...(exactMoves ? [before.exact] : []),
      ...(foldedMoves ? heldFoldedKey(state, before.folded, recordKey) : []),
    ],
  };
}

export interface Named {
  name: string;
  kind?: string;
  created_at?: string;
}

/** One kind of named record whose names are unique regardless of case. */
export interface FoldedKind {
  what: string;
  prefix: string;
  key: (r: Named) => string;
}

const FOLDED: readonly FoldedKind[] = [
  { what: 'users', prefix: prefixes.users, key: (r) => keys.userFoldedName(r.name) },
  { what: 'roles', prefix: prefixes.roles, key: (r) => keys.roleFoldedName(r.name) },
  { what: 'agents', prefix: prefixes.agents, key: (r) => keys.agentFoldedName(r.name) },
  { what: 'resources', prefix: prefixes.resources, key: (r) => keys.resourceFoldedName(r.kind ?? '', r.name) },
];

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Keys per write: well under the operation limits of transactional stores (etcd allows 128). */
const BATCH = 100;

/**
 * Writes the folded-name key of every record that lacks one, in one pass. Records that already
 * collide case-insensitively are left as they are (deleting data is not for a start-up to decide):
 * the oldest holds the key, the others keep working, and one warning names them all.
 */
export async function backfillFoldedNames(
  state: StateStore,
  warn: (message: string) => void,
  /** Kinds of the domains above auth (webhooks), which this layer does not know. */
  more: readonly FoldedKind[] = [],
): Promise<{ added: number; collisions: string[] }> {
  const missing: Array<{ key: string; ref: string }> = [];
  const collisions: string[] = [];
  for (const kind of [...FOLDED, ...more]) {
    const byFolded = new Map<string, CachedItem<Named>[]>();
    for (const item of state.list<Named>(kind.prefix)) {
      const foldedKey = kind.key(item.value);
      byFolded.set(foldedKey, [...(byFolded.get(foldedKey) ?? []), item]);
    }
    for (const [foldedKey, items] of byFolded) {
      const oldestFirst = [...items].sort(
        (a, b) => compare(a.value.created_at ?? '', b.value.created_at ?? '') || compare(a.key, b.key),
      );
      if (items.length > 1) {
        const names = oldestFirst.map((i) => `${JSON.stringify(i.value.name)} (${i.key})`);
        collisions.push(`${kind.what} ${names.join(', ')}`);
      }
      if (!state.get(foldedKey)) missing.push({ key: foldedKey, ref: (oldestFirst[0] as CachedItem<Named>).key });
    }
  }
  for (let i = 0; i < missing.length; i += BATCH) {
    const batch = missing.slice(i, i + BATCH);
    const write = (items: typeof batch) =>
      state.write(
        items.map((k): Condition => ({ key: k.key, is: 'absent' })),
        items.map((k): Operation => ({ type: 'put', key: k.key, value: JSON.stringify({ ref: k.ref }) })),
      );
    // Another instance backfilling (or a record created) meanwhile fails the batch: then one key at a
    // time, and a key that exists by now already says what this pass would have.
    const ignoreConflict = (error: unknown) => {
      if (!(error instanceof BackendError)) throw error;
    };
    await write(batch).catch(async (error: unknown) => {
      ignoreConflict(error);
      for (const one of batch) await write([one]).catch(ignoreConflict);
    });
  }
  if (collisions.length > 0) {
    warn(
      `names that differ only in case already exist and were left as they are (new names must differ in more than case; rename or delete one of each): ${collisions.join('; ')}`,
    );
  }
  return { added: missing.length, collisions };
}
