// The start-up wait for the auth tier against a scripted pool: what it waits out (nothing listening,
// a 503), what it does not (a certificate it does not trust), and the jittered, growing pauses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthUnreachable, waitForAuthTier } from './auth-client.js';

const refused = () =>
  new AuthUnreachable('no auth server answered', {
    cause: Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
  });

/** A pool whose fetch plays `script` in order: an error to throw, or a status to answer. */
function scripted(script: Array<Error | number>) {
  let calls = 0;
  return {
    calls: () => calls,
    fetch: async () => {
      const next = script[Math.min(calls++, script.length - 1)];
      if (next instanceof Error) throw next;
      return new Response(null, { status: next });
    },
  };
}

test('nothing listening, then a 503, then an answer: it waits with growing jittered pauses, told once', async () => {
  const pool = scripted([refused(), refused(), 503, 200]);
  const told: string[] = [];
  const started = Date.now();
  await waitForAuthTier(pool, { onWait: (reason) => void told.push(reason), random: () => 0 });
  const took = Date.now() - started;
  assert.equal(pool.calls(), 4);
  // With random() = 0 each pause is half its bound: 125 + 250 + 500 ms.
  assert.ok(took >= 850 && took < 3000, `waited ${took} ms`);
  assert.equal(told.length, 1, 'one line for the first failure; the next comes 5 s later at the earliest');
  assert.match(told[0] as string, /no auth server answered/);
});

test('the pauses stay within their bound: at most 5 s, at least half of it', async () => {
  const pool = scripted([refused(), 200]);
  const started = Date.now();
  await waitForAuthTier(pool, { onWait: () => {}, random: () => 0.999 });
  const took = Date.now() - started;
  assert.ok(took >= 240 && took < 1500, `waited ${took} ms for a 250 ms bound`);
});

test('a certificate it does not trust is an answer: no wait, the first real call reports it', async () => {
  const untrusted = new AuthUnreachable('auth https://a:3025: fetch failed', {
    cause: Object.assign(new TypeError('fetch failed'), { cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } }),
  });
  const pool = scripted([untrusted]);
  let told = 0;
  await waitForAuthTier(pool, {
    onWait: () => {
      told++;
    },
  });
  assert.equal(pool.calls(), 1);
  assert.equal(told, 0);
});

test('a refused cluster token (401) is an answer too', async () => {
  const pool = scripted([401]);
  await waitForAuthTier(pool, { onWait: () => assert.fail('no wait for a 401') });
  assert.equal(pool.calls(), 1);
});
