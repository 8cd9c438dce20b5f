import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import { requestInfo } from './kube-request.js';
import { createKubeScopes, SCOPE_TTL_MS } from './kube-scope.js';

const upstream: KubeUpstream = { url: 'https://127.0.0.1:6443', ca: '' };
const info = (path: string) => requestInfo('GET', path, new URLSearchParams());

function setup(answers: Array<Map<string, boolean> | undefined>) {
  let now = 1_000_000;
  const fetched: string[] = [];
  const scopes = createKubeScopes({
    clock: () => now,
    fetch: async (_u, groupVersion) => {
      fetched.push(groupVersion);
      return answers.length > 1 ? answers.shift() : answers[0];
    },
  });
  return { scopes, fetched, advance: (ms: number) => (now += ms) };
}

test('the discovery document decides; fetched once per group version until it expires', async () => {
  const { scopes, fetched, advance } = setup([
    new Map([
      ['clusterwidgets', false],
      ['widgets', true],
    ]),
  ]);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/clusterwidgets')), true);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/clusterwidgets/big')), true);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/widgets')), false);
  assert.deepEqual(fetched, ['example.dev/v1']);
  advance(SCOPE_TTL_MS + 1);
  await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/widgets'));
  assert.deepEqual(fetched, ['example.dev/v1', 'example.dev/v1']);
});

test('a namespace in the path, the core group and discovery paths never fetch', async () => {
  const { scopes, fetched } = setup([new Map([['widgets', false]])]);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/namespaces/dev/widgets')), false);
  assert.equal(await scopes.clusterScoped(upstream, info('/api/v1/nodes')), false);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1')), false);
  assert.deepEqual(fetched, []);
});

test('a group or version that is not a plain name (decoded from the path) is never fetched, and stays governed', async () => {
  const { scopes, fetched } = setup([new Map([['clusterwidgets', false]])]);
  for (const path of [
    '/apis/..%2F..%2Fapi%2Fv1%2Fsecrets/v1/clusterwidgets',
    '/apis/example.dev/v1%3Fx%3D1/clusterwidgets',
    '/apis/Example.dev/v1/clusterwidgets',
  ])
    assert.equal(await scopes.clusterScoped(upstream, info(path)), false, path);
  assert.deepEqual(fetched, []);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1beta1/clusterwidgets')), true);
});

test('a failed fetch leaves the kind governed, and is retried after a few seconds, not on every request', async () => {
  const { scopes, fetched, advance } = setup([undefined, new Map([['clusterwidgets', false]])]);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/clusterwidgets')), false);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/clusterwidgets')), false);
  assert.equal(fetched.length, 1);
  advance(5_001);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/clusterwidgets')), true);
  assert.equal(fetched.length, 2);
});

test('a kind the document did not list (a CRD created since) is asked again after a few seconds', async () => {
  const { scopes, fetched, advance } = setup([
    new Map([['widgets', true]]),
    new Map([
      ['widgets', true],
      ['gadgets', false],
    ]),
  ]);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/gadgets')), false);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/gadgets')), false);
  assert.equal(fetched.length, 1);
  advance(5_001);
  assert.equal(await scopes.clusterScoped(upstream, info('/apis/example.dev/v1/gadgets')), true);
});

test('concurrent requests share one fetch', async () => {
  const { scopes, fetched } = setup([new Map([['clusterwidgets', false]])]);
  const answers = await Promise.all(
    [1, 2, 3].map(() => scopes.clusterScoped(upstream, info('/apis/example.dev/v1/clusterwidgets'))),
  );
  assert.deepEqual(answers, [true, true, true]);
  assert.equal(fetched.length, 1);
});
