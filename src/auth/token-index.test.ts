// The token index answers which tokens a principal, family, API key or credential holds, through
// adds, updates and removals from the cache's change feed, whether a group has one token or many.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeListener } from '../backend/cache.js';
import type { StateStore } from '../backend/state.js';
import { prefixes, type TokenRecord } from './records.js';
import { createTokenIndex } from './token-index.js';

function feed(initial: Array<[string, TokenRecord]>) {
  let listener: ChangeListener = () => {};
  // As the cache does: each change comes with the item it replaces.
  const held = new Map(initial.map(([key, value]) => [key, { key, value, revision: 1 }]));
  const state = {
    get: (key: string) => held.get(key),
    list: (prefix: string) =>
      initial.filter(([key]) => key.startsWith(prefix)).map(([key, value]) => ({ key, value, revision: 1 })),
    cache: {
      decodeUnder() {},
      onChange(l: ChangeListener) {
        listener = l;
        return () => {};
      },
    },
  } as unknown as StateStore;
  const index = createTokenIndex(state);
  const put = (key: string, value: TokenRecord) => {
    const item = { key, value, revision: 2 };
    const previous = held.get(key);
    held.set(key, item);
    listener(key, item, previous);
  };
  const drop = (key: string) => {
    const previous = held.get(key);
    held.delete(key);
    listener(key, undefined, previous);
  };
  return { index, put, drop };
}

const token = (family: string, extra: Partial<TokenRecord> = {}): TokenRecord => ({
  kind: 'access',
  principal: { kind: 'user', id: 'user_a' },
  family,
  api_key_id: 'key_a',
  issued_at: 0,
  expires_at: 1,
  ...extra,
});
const key = (n: number) => `${prefixes.tokens}t${n}`;
const sorted = (xs: string[]) => [...xs].sort();

test('tokens are found by principal, family, API key and credential through adds, updates and removals', () => {
  const { index, put, drop } = feed([[key(1), token('f1')]]);
  assert.deepEqual(index.ofFamily('f1'), [key(1)], 'indexed from the initial listing');

  put(key(2), token('f1', { kind: 'refresh' }));
  put(key(3), token('f2', { credential_id: 'cred_x' }));
  assert.deepEqual(sorted(index.ofFamily('f1')), [key(1), key(2)]);
  assert.deepEqual(index.ofFamily('f2'), [key(3)]);
  assert.deepEqual(sorted(index.ofPrincipal('user_a')), [key(1), key(2), key(3)]);
  assert.deepEqual(sorted(index.ofApiKey('key_a')), [key(1), key(2), key(3)]);
  assert.deepEqual(index.ofCredential('cred_x'), [key(3)]);

  put(key(1), token('f1', { revoked_at: 5 }));
  assert.deepEqual(sorted(index.ofFamily('f1')), [key(1), key(2)], 'an update is indexed once');
  put(key(3), token('f2'));
  assert.deepEqual(index.ofCredential('cred_x'), [], 'a group the new record leaves no longer has the token');
  assert.deepEqual(index.ofFamily('f2'), [key(3)]);

  drop(key(2));
  assert.deepEqual(index.ofFamily('f1'), [key(1)]);
  drop(key(1));
  assert.deepEqual(index.ofFamily('f1'), []);
  assert.deepEqual(index.ofPrincipal('user_a'), [key(3)]);
  drop(key(3));
  drop(key(3));
  assert.deepEqual(index.ofPrincipal('user_a'), [], 'a removal of what is gone changes nothing');
  assert.deepEqual(index.ofApiKey('key_a'), []);
});

test('a delegated token belongs to the agent and to the user it acts for', () => {
  const { index, put, drop } = feed([]);
  put(
    key(1),
    token('f1', { principal: { kind: 'agent', id: 'agent_b' }, on_behalf_of: { kind: 'user', id: 'user_a' } }),
  );
  assert.deepEqual(index.ofPrincipal('agent_b'), [key(1)]);
  assert.deepEqual(index.ofPrincipal('user_a'), [key(1)]);
  assert.deepEqual(index.ofPrincipal('user_c'), [], 'control: nobody else');
  drop(key(1));
  assert.deepEqual(index.ofPrincipal('user_a'), []);
  assert.deepEqual(index.ofPrincipal('agent_b'), []);
});

test('a delegated token is found by the logins, keys and credentials it was exchanged from, but is none of their own', () => {
  const { index, put, drop } = feed([[key(1), token('f1')]]);
  put(
    key(2),
    token('fx', {
      principal: { kind: 'agent', id: 'agent_b' },
      api_key_id: undefined,
      on_behalf_of: { kind: 'user', id: 'user_a' },
      exchanged_from: {
        subject: { id: 't1', family: 'f1', api_key_id: 'key_a' },
        actor: { id: 't9', family: 'f9', credential_id: 'cred_y' },
      },
    }),
  );
  assert.deepEqual(sorted(index.ofFamily('f1')), [key(1), key(2)], "ending the user's login ends it");
  assert.deepEqual(sorted(index.ofApiKey('key_a')), [key(1), key(2)], "deleting the user's key ends it");
  assert.deepEqual(index.ofCredential('cred_y'), [key(2)], "revoking the agent's credential ends it");
  assert.deepEqual(index.ofFamily('f9'), [key(2)]);
  assert.deepEqual(
    index.familyByAge('f1').map(([k]) => k),
    [key(1)],
    "the login's own tokens (which its bound trims) do not count it",
  );
  assert.deepEqual(index.ofCredential('cred_z'), [], 'control: nothing else');
  drop(key(2));
  assert.deepEqual(index.ofFamily('f1'), [key(1)]);
  assert.deepEqual(index.ofCredential('cred_y'), []);
});

test("an API key's logins are kept least recently used first: a new token moves its login, a rewrite does not", () => {
  const { index, put, drop } = feed([
    [key(1), token('f1')],
    [key(2), token('f2')],
  ]);
  // Admitting a login with room for one ends every other; undone, it changes nothing.
  const order = (apiKeyId: string): string[] => {
    const probe = index.admitLogin(apiKeyId, 'probe', 1);
    probe.undo();
    return probe.ended;
  };
  put(key(3), token('f3'));
  put(key(4), token('f4', { api_key_id: 'key_b' }));
  assert.deepEqual(order('key_a'), ['f1', 'f2', 'f3'], 'in the order they got their tokens');
  assert.deepEqual(order('key_a'), ['f1', 'f2', 'f3'], 'undo put them back in order');
  assert.deepEqual(order('key_b'), ['f4'], "another key's logins are its own");

  put(key(5), token('f1', { kind: 'refresh', issued_at: 2 }));
  assert.deepEqual(order('key_a'), ['f2', 'f3', 'f1'], 'a new token (a refresh) makes its login recent');
  put(key(2), token('f2', { revoked_at: 3 }));
  assert.deepEqual(order('key_a'), ['f2', 'f3', 'f1'], 'a revoked or used token is not a use');

  drop(key(1));
  assert.deepEqual(order('key_a'), ['f2', 'f3', 'f1'], 'a login stays while any of its tokens is stored');
  drop(key(5));
  drop(key(2));
  assert.deepEqual(order('key_a'), ['f3'], 'and goes with its last one');
});

test('logins admitted together end different logins, and count each other before their tokens arrive', () => {
  const { index, put, drop } = feed([1, 2, 3].map((n) => [key(n), token(`f${n}`)]));
  assert.deepEqual(index.admitLogin('key_a', 'f4', 4).ended, [], 'room for a fourth');
  assert.deepEqual(index.admitLogin('key_a', 'f5', 4).ended, ['f1'], 'the fourth, in flight, counts');
  const sixth = index.admitLogin('key_a', 'f6', 4);
  assert.deepEqual(sixth.ended, ['f2'], 'not f1 again');
  sixth.undo();
  assert.deepEqual(index.admitLogin('key_a', 'f7', 4).ended, ['f2'], 'an undone admission gives its login back');
  // The writes land: f1's and f2's tokens deleted, the new logins' tokens stored.
  drop(key(1));
  drop(key(2));
  for (const [n, f] of [
    [4, 'f4'],
    [5, 'f5'],
    [7, 'f7'],
  ] as const)
    put(key(n), token(f));
  assert.deepEqual(index.admitLogin('key_a', 'f8', 4).ended, ['f3'], 'four logins held: f3, f4, f5, f7');
});

test('a login still being written is never ended; the next login after it lands ends the excess', () => {
  const { index, put } = feed([[key(1), token('f1')]]);
  assert.deepEqual(index.admitLogin('key_a', 'f2', 2).ended, []);
  assert.deepEqual(index.admitLogin('key_a', 'f3', 2).ended, ['f1']);
  assert.deepEqual(index.admitLogin('key_a', 'f4', 2).ended, [], 'f2 and f3 have no tokens yet: nothing to end');
  for (const [n, f] of [
    [2, 'f2'],
    [3, 'f3'],
    [4, 'f4'],
  ] as const)
    put(key(n), token(f));
  assert.deepEqual(index.admitLogin('key_a', 'f5', 2).ended, ['f2', 'f3'], 'back to two: f4 and f5');
});

test('an ended login that gets a token before its deletion lands stays listed with that token', () => {
  const { index, put, drop } = feed([
    [key(1), token('f1')],
    [key(2), token('f1', { kind: 'refresh' })],
  ]);
  const admitted = index.admitLogin('key_a', 'f2', 1);
  assert.deepEqual(admitted.ended, ['f1']);
  assert.deepEqual(admitted.tokens.sort(), [key(1), key(2)], 'the tokens to delete');
  // Until their deletion lands they are still the key's: revoking the key reaches them.
  assert.deepEqual(sorted(index.ofApiKey('key_a')), [key(1), key(2)]);
  put(key(3), token('f1', { issued_at: 5 })); // a refresh of f1 lands first
  put(key(4), token('f2'));
  assert.deepEqual(sorted(index.ofApiKey('key_a')), [key(1), key(2), key(3), key(4)], 'each once');
  drop(key(1)); // then the login's write: f1's two old tokens go
  drop(key(2));
  const next = index.admitLogin('key_a', 'f5', 1);
  assert.deepEqual(next.ended, ['f1', 'f2'], 'f1 is still listed, by its one remaining token');
  assert.deepEqual(next.tokens.sort(), [key(3), key(4)]);
});

test("a login's tokens come oldest issued first", () => {
  const { index, put } = feed([]);
  put(key(1), token('f1', { issued_at: 30 }));
  put(key(2), token('f1', { issued_at: 10, kind: 'refresh' }));
  put(key(3), token('f1', { issued_at: 20 }));
  put(key(4), token('f2', { issued_at: 5 }));
  assert.deepEqual(
    index.familyByAge('f1').map(([k, r]) => [k, r?.issued_at]),
    [
      [key(2), 10],
      [key(3), 20],
      [key(1), 30],
    ],
  );
});

test('one admission ends at most `atMost` logins: a key far over a lowered bound comes down over several', () => {
  const { index } = feed(Array.from({ length: 10 }, (_, i): [string, TokenRecord] => [key(i), token(`f${i}`)]));
  assert.deepEqual(index.admitLogin('key_a', 'g1', 2, 4).ended, ['f0', 'f1', 'f2', 'f3']);
  assert.deepEqual(index.admitLogin('key_a', 'g2', 2, 4).ended, ['f4', 'f5', 'f6', 'f7']);
  assert.deepEqual(index.admitLogin('key_a', 'g3', 2, 4).ended, ['f8', 'f9'], 'then only what is over the bound');
});
