// The committed OpenAPI document is what the code generates, and it is served as such.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generateOpenApi } from '../scripts/openapi-document.js';
import { api, startTestServer } from './helpers/gatehouse.js';

test('docs/openapi.json matches the route schemas (run `npm run docs` after changing a route)', async () => {
  const committed = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
  const generated = JSON.parse(JSON.stringify(await generateOpenApi()));
  assert.deepEqual(committed, generated);
});

test('the served document is OpenAPI 3.1, names each permission, and the docs page loads', async () => {
  const server = await startTestServer();
  try {
    const doc = (await api(server.url, 'GET', '/v1/openapi.json')).json;
    assert.equal(doc.openapi, '3.1.0');
    const ops = Object.values(
      doc.paths as Record<string, Record<string, { 'x-gatehouse-permission'?: string }>>,
    ).flatMap((p) => Object.values(p));
    assert.ok(ops.length >= 28);
    for (const op of ops) assert.ok(op['x-gatehouse-permission'], JSON.stringify(op).slice(0, 120));
    assert.equal(doc.paths['/v1/agents'].get['x-gatehouse-permission'], 'agents:list');
    const page = await api(server.url, 'GET', '/v1/docs/');
    assert.equal(page.status, 200);
    assert.match(page.text, /swagger-ui/i);
  } finally {
    await server.stop();
  }
});

test('docs/events.md lists every event type of the catalogue (run `npm run docs` after adding one)', async () => {
  const { renderEventDocs } = await import('../scripts/event-docs.js');
  const committed = readFileSync(new URL('../docs/events.md', import.meta.url), 'utf8');
  assert.equal(committed, renderEventDocs());
});
