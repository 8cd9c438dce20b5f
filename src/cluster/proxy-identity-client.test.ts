// A proxy's side of its identity (proxy-identity-client.ts) against an auth tier made of the real
// credential code (proxy-credentials.ts) on a clock of its own, with node:test's timers and Date: it renews at
// half the credential's life whatever this host's clock says, its proofs hold on auth's clock, a
// refused renewal is a removal (told once, nothing renewed after), any other failure is retried.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, mock, test } from 'node:test';
import type { JWK } from 'jose';
import { createProxyCredentials, proofHolds, proofSubject, publicEd25519Jwk } from './proxy-credentials.js';
import { establishIdentity } from './proxy-identity-client.js';

const ID = 'prx_00112233445566aa';
const HALF_LIFE_MS = 300_000;

/** An auth tier whose clock is skewMs off this host's, answering join and renewal as auth does. */
function authTier(skewMs: number) {
  const clock = () => Date.now() + skewMs;
  const credentials = createProxyCredentials(generateKeyPairSync('ed25519').privateKey, clock);
  let registered: JWK | undefined;
  const calls: Array<{ path: string; status: number }> = [];
  const state = { answer: undefined as number | undefined };
  const reply = (path: string, status: number, body: unknown) => {
    calls.push({ path, status });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return {
    calls,
    credentials,
    /** From now on every renewal is answered with this status (401: removed; 503: unavailable). */
    answerWith: (status: number) => {
      state.answer = status;
    },
    fetch: async (path: string, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { public_key?: unknown; proof?: string };
      if (path.endsWith('/join')) {
        registered = publicEd25519Jwk(body.public_key);
        return reply(path, 200, { instance: ID, ...(await credentials.issue(ID)) });
      }
      if (state.answer !== undefined) return reply(path, state.answer, { detail: 'as told' });
      const proof = body.proof ?? '';
      const holds =
        registered !== undefined && proofSubject(proof) === ID && (await proofHolds(proof, registered, ID, clock));
      if (!holds) return reply(path, 401, { detail: 'the proof does not hold' });
      return reply(path, 200, { instance: ID, ...(await credentials.issue(ID)) });
    },
  };
}

/**
 * Lets what a fired timer started run (signing and verifying go through libuv's pool): until done()
 * holds, or 300 ms of real time (performance.now: Date is the mock's) when it is to stay undone.
 */
const settle = async (done: () => boolean = () => false, ms = 300) => {
  const end = performance.now() + (done() ? 0 : ms);
  while (!done() && performance.now() < end) await new Promise((r) => setImmediate(r));
};
const callsReach = (auth: { calls: unknown[] }, n: number) => settle(() => auth.calls.length >= n, 5000);

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-identity-'));
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
});
afterEach(() => {
  mock.timers.reset();
  rmSync(dataDir, { recursive: true, force: true });
});

for (const [what, skewMs] of [
  ['the same clock', 0],
  ['auth 20 minutes ahead of this host', 20 * 60_000],
  ['auth 20 minutes behind this host', -20 * 60_000],
] as const)
  test(`renews at half-life with ${what}: the proof holds, the fresh credential is auth's`, async () => {
    const auth = authTier(skewMs);
    const errors: unknown[] = [];
    const identity = await establishIdentity(auth, { dataDir, joinToken: 'gjt_x', onError: (e) => errors.push(e) });
    try {
      const first = identity.headers()['x-gatehouse-proxy-credential'] as string;
      assert.equal(await auth.credentials.verify(first), ID, 'positive control: the joined credential');
      mock.timers.tick(HALF_LIFE_MS - 1000);
      await settle();
      assert.equal(auth.calls.length, 1, 'nothing renewed before half-life');
      mock.timers.tick(1000);
      await callsReach(auth, 2);
      assert.deepEqual(auth.calls.at(-1), { path: '/internal/v1/credential', status: 200 }, 'renewed, proof held');
      const second = identity.headers()['x-gatehouse-proxy-credential'] as string;
      assert.notEqual(second, first);
      assert.equal(await auth.credentials.verify(second), ID);
      await settle(() => identity.headers()['x-gatehouse-proxy-credential'] !== first, 5000);
      mock.timers.tick(HALF_LIFE_MS);
      await callsReach(auth, 3);
      assert.equal(auth.calls.length, 3, 'and again half the next one’s life later');
      assert.equal(identity.removed(), false);
      assert.deepEqual(errors, []);
    } finally {
      identity.stop();
    }
  });

test('a refused renewal is a removal: told once, nothing renewed after', async () => {
  const auth = authTier(0);
  const identity = await establishIdentity(auth, { dataDir, joinToken: 'gjt_x', onError: () => {} });
  let told = 0;
  identity.onRemoved(() => told++);
  auth.answerWith(401);
  identity.refused();
  await settle(() => identity.removed(), 5000);
  assert.equal(identity.removed(), true);
  assert.equal(told, 1);
  mock.timers.tick(10 * HALF_LIFE_MS);
  identity.refused();
  await settle();
  assert.equal(auth.calls.length, 2, 'the join and the one refused renewal');
  let late = 0;
  identity.onRemoved(() => late++);
  assert.equal(late, 1, 'a listener added after the removal hears of it at once');
});

test('any other failure is retried 2 s later, and the identity stays (positive control for the removal)', async () => {
  const auth = authTier(0);
  const errors: unknown[] = [];
  const identity = await establishIdentity(auth, { dataDir, joinToken: 'gjt_x', onError: (e) => errors.push(e) });
  try {
    auth.answerWith(503);
    mock.timers.tick(HALF_LIFE_MS);
    await settle(() => errors.length > 0, 5000);
    assert.equal(errors.length, 1);
    assert.equal(identity.removed(), false);
    mock.timers.tick(1999);
    await settle();
    assert.equal(auth.calls.length, 2, 'not before 2 s');
    mock.timers.tick(1);
    await callsReach(auth, 3);
    assert.equal(auth.calls.length, 3, 'retried');
  } finally {
    identity.stop();
  }
});
