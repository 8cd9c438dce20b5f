import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('a token from the bootstrap key lists agents in the seed shape', async () => {
  const res = await api(server.url, 'GET', '/v1/agents', { token: server.adminToken });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { agents: [], pagination: { total: 0, page: 1, per_page: 20 } });
  assert.match(res.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
});
