import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResourceRecord } from '../resources/resource-service.js';
import { createAppAddressing, hostNameOf } from './app-addressing.js';
import { landingPath } from './app-launch.js';

function stateOf(records: Partial<ResourceRecord>[]) {
  const items = records.map((r, i) => ({
    key: `resources/${r.id}`,
    revision: i + 1,
    value: { kind: 'app', labels: {}, description: '', updated_at: '', ...r } as ResourceRecord,
  }));
  return {
    list: () => items,
    get: (key: string) => items.find((i) => i.key === key),
    cache: { onChange: () => () => {} },
  } as never;
}

test('apps are served at <name>.<apps domain>, a public_addr, never at the console host', () => {
  const addressing = createAppAddressing({
    state: stateOf([
      { id: 'app_1', name: 'Grafana', uri: 'http://g', created_at: '1' },
      {
        id: 'app_2',
        name: 'wiki.internal',
        uri: 'http://w',
        created_at: '2',
        app: { public_addr: 'wiki.example.com' },
      },
      // Names another app's host and the console's: neither is taken.
      { id: 'app_3', name: 'thief', uri: 'http://t', created_at: '3', app: { public_addr: 'grafana.gh.example.com' } },
      { id: 'app_4', name: 'thief2', uri: 'http://t', created_at: '4', app: { public_addr: 'gh.example.com' } },
    ]),
  });
  assert.equal(addressing.match('grafana.gh.example.com'), undefined, 'nothing before publish');
  addressing.publish('https://gh.example.com:8443');
  assert.equal(addressing.publicUrlOf({ kind: 'app', name: 'Grafana' }), 'https://grafana.gh.example.com:8443/');
  assert.equal(addressing.match('GRAFANA.gh.example.com:8443')?.app?.id, 'app_1');
  assert.equal(addressing.match('wiki.example.com')?.app?.id, 'app_2');
  assert.equal(addressing.match('gh.example.com:8443'), undefined, 'the console host is the console');
  assert.deepEqual(addressing.match('nosuch.gh.example.com'), { app: undefined, host: 'nosuch.gh.example.com' });
  assert.equal(addressing.match('elsewhere.test'), undefined);
  assert.equal(addressing.publicUrlOf({ kind: 'app', name: 'wiki_internal' }), undefined, 'not a DNS label');
  addressing.publish('http://localhost:3080', 'apps.example.com');
  assert.equal(addressing.publicUrlOf({ kind: 'app', name: 'grafana' }), 'http://grafana.apps.example.com:3080/');
  assert.equal(hostNameOf('[::1]:3080'), '[::1]');
});

test('a landing path is a path on the app host, never another origin', () => {
  assert.equal(landingPath(undefined), '/');
  assert.equal(landingPath('/d/abc?orgId=1'), '/d/abc?orgId=1');
  for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'evil', '/a b', '/a\nb'])
    assert.throws(() => landingPath(bad), /single \//, bad);
});
