// What a joined proxy's identity reads of the cluster state (proxy-reads.ts), driven through a real
// auth instance's internal API as a hostile proxy would: every record that holds a sealed blob in the
// auth tier's own store (found by the blob's shape, whatever its prefix) reaches the proxy through
// get, getRange and the watch without it, and no plaintext secret given to the API reaches it at all;
// positive control: the users and roles it serves arrive whole.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type JoinedIdentity, joinIdentity } from '../../test/helpers/cluster-join.js';
import { createDbRole } from '../../test/helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from '../../test/helpers/gatehouse.js';
import { createSecretBox } from '../lib/secret-box.js';
import { asProxySees, withoutHidden } from './proxy-reads.js';

/** A value sealed by lib/secret-box.ts: v1.<iv, 12 bytes>.<tag, 16 bytes>.<ciphertext>, base64. */
const SEALED = /v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]{22}==\.[A-Za-z0-9+/=]+/;
const secret = (what: string) => `${what}-${randomBytes(12).toString('hex')}`;
const PLAINTEXTS = {
  webhook: '', // made by the server, answered once at creation
  sso: secret('sso-client-secret'),
  db: secret('db-password'),
  dbReadOnly: secret('db-ro-password'),
  kube: secret('kube-token'),
  mcp: secret('mcp-bearer'),
  mcpHeader: secret('mcp-header'),
  ticket: '',
};

interface Read {
  key: string;
  value: string;
}

let auth: TestServer;
let me: JoinedIdentity;
/** Every line the proxy's watch over the whole state received while the records were made. */
const watched: string[] = [];
let stopWatch: () => void;

const internal = async (op: string, args: unknown[]) => {
  const res = await fetch(`${auth.url}/internal/v1/backend/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...me.headers() },
    body: JSON.stringify({ args }),
  });
  return { status: res.status, body: (await res.json()) as { result?: unknown } };
};

/** Follows the proxy's watch stream (NDJSON) into `watched` until stopped. */
async function watchAll(): Promise<() => void> {
  const abort = new AbortController();
  const res = await fetch(`${auth.url}/internal/v1/backend/watch`, { headers: me.headers(), signal: abort.signal });
  assert.equal(res.status, 200, 'positive control: a proxy watches the state');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let rest = '';
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        rest += decoder.decode(value, { stream: true });
        const lines = rest.split('\n');
        rest = lines.pop() ?? '';
        watched.push(...lines.filter((l) => l !== ''));
      }
    } catch {
      // aborted
    }
  })();
  return () => abort.abort();
}

const watchedItems = (): Read[] =>
  watched.flatMap((line) => {
    const l = JSON.parse(line) as { initial?: Read[]; events?: Array<{ item?: Read }> };
    return [...(l.initial ?? []), ...(l.events ?? []).flatMap((e) => (e.item ? [e.item] : []))];
  });

before(async () => {
  auth = await startTestServer({ roles: ['auth'], db_public_addr: '127.0.0.1:3036' });
  me = await joinIdentity(auth);
  stopWatch = await watchAll();
  const admin = (method: string, path: string, body?: unknown) =>
    api(auth.url, method, path, { token: auth.adminToken, ...(body === undefined ? {} : { body }) });
  const made = async (path: string, body: unknown) => {
    const res = await admin('POST', path, body);
    assert.equal(res.status, 201, `${path}: ${res.text}`);
    return res.json;
  };
  PLAINTEXTS.webhook = (
    await made('/v1/webhooks', { name: 'reads-hook', url: 'https://hooks.example.com/x', event_types: ['*'] })
  ).secret;
  await made('/v1/auth/connectors', {
    kind: 'oidc',
    name: 'reads-idp',
    display_name: 'IdP',
    issuer: 'https://idp.example.com',
    client_id: 'client-1',
    client_secret: PLAINTEXTS.sso,
    scopes: ['openid'],
    claims_to_roles: [{ claim: 'groups', value: 'ops', roles: ['editor'] }],
    username_claim: 'preferred_username',
  });
  await made('/v1/resources', { kind: 'server', name: 'reads-srv', address: '127.0.0.1:22' });
  await made('/v1/resources', {
    kind: 'database',
    name: 'reads-db',
    address: '127.0.0.1:5432',
    protocol: 'postgres',
    db: {
      users: [{ name: 'postgres', password: PLAINTEXTS.db }],
      read_only_login: { name: 'reader', password: PLAINTEXTS.dbReadOnly },
    },
  });
  await made('/v1/resources', {
    kind: 'kube_cluster',
    name: 'reads-kube',
    address: 'https://127.0.0.1:6443',
    kube: { ca_pem: auth.gatehouse.services.kubeCa.certPem, token: PLAINTEXTS.kube },
  });
  await made('/v1/resources', {
    kind: 'app',
    name: 'reads-mcp',
    uri: 'https://mcp.example.com',
    protocol: 'mcp',
    mcp: { headers: { authorization: `Bearer ${PLAINTEXTS.mcp}`, 'x-api-key': PLAINTEXTS.mcpHeader } },
  });
  // An agent's JWT credential makes the agents' signing key (jwks/, its private half sealed).
  const agent = await made('/v1/agents', { name: 'reads-bot', roles: ['auditor'] });
  await made(`/v1/agents/${agent.id}/credentials`, { type: 'jwt', audience: 'https://svc.example.com' });
  // A one-time connection ticket: kept as its hash, which is all a redeeming proxy needs.
  await createDbRole(auth, 'reads-db-role', { rules: [{ resources: ['sessions'], verbs: ['create'] }] });
  const carol = await userWithRoles(auth, 'reads-carol', ['reads-db-role']);
  const ticket = await api(auth.url, 'POST', '/v1/sessions', {
    token: carol.token,
    body: { database: 'reads-db', db_user: 'postgres', db_name: 'test' },
  });
  assert.equal(ticket.status, 201, ticket.text);
  PLAINTEXTS.ticket = ticket.json.ticket;
  // The watch has delivered everything written so far once a write made last shows in it.
  const last = await made('/v1/roles', { name: 'reads-last', allow: { resources: [{ kinds: ['server'] }] } });
  const deadline = Date.now() + 10_000;
  while (!watched.some((l) => l.includes(last.id)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
});
after(async () => {
  stopWatch?.();
  await auth?.stop();
});

describe('a proxy identity reads the state without its sealed secrets', () => {
  /** The keys that hold a sealed blob in the auth tier's own store. */
  const sealedKeys = () =>
    auth.gatehouse.services.state
      .list<unknown>('')
      .filter((i) => SEALED.test(JSON.stringify(i.value)))
      .map((i) => i.key);

  test('the auth tier itself holds sealed blobs under every prefix that keeps one (the test is not vacuous)', () => {
    const keys = sealedKeys();
    for (const prefix of [
      'jwks/',
      'webhooks/',
      'sso/connectors/',
      'secrets/servers/',
      'secrets/db/',
      'secrets/kube/',
      'secrets/mcp/',
      'secrets/ssh-user-ca',
      'secrets/ssh-client-ca',
      'secrets/kube-ca',
      'secrets/cluster-signing-key',
    ])
      assert.ok(
        keys.some((k) => k.startsWith(prefix)),
        `a sealed blob under ${prefix}: ${keys.join(', ')}`,
      );
    for (const [what, plain] of Object.entries(PLAINTEXTS)) assert.ok(plain.length > 0, `${what} was made`);
  });

  const leaks = (reads: Read[]) => {
    const found: string[] = [];
    for (const r of reads) {
      if (SEALED.test(r.value)) found.push(`${r.key}: a sealed blob`);
      for (const [what, plain] of Object.entries(PLAINTEXTS))
        if (r.key.includes(plain) || r.value.includes(plain)) found.push(`${r.key}: the ${what} secret`);
    }
    return found;
  };

  test('getRange over the whole state and over each prefix: no sealed blob, no plaintext; users and roles whole', async () => {
    const all = await internal('getRange', ['', {}]);
    assert.equal(all.status, 200);
    const items = all.body.result as Read[];
    assert.deepEqual(leaks(items), []);
    const user = items.find((i) => i.key.startsWith('users/') && i.value.includes('"reads-carol"'));
    assert.ok(user, 'positive control: the proxy reads a user');
    assert.equal(JSON.parse(user.value).name, 'reads-carol');
    assert.ok(
      items.some((i) => i.key.startsWith('roles/') && i.value.includes('"reads-db-role"')),
      'positive control: the proxy reads a role',
    );
    for (const prefix of ['jwks/', 'webhooks/', 'sso/', 'resources/', 'tickets/', 'index/']) {
      const some = await internal('getRange', [prefix, {}]);
      assert.equal(some.status, 200, prefix);
      assert.deepEqual(leaks(some.body.result as Read[]), [], prefix);
    }
    // Tickets reach it as the hash a redeeming proxy looks up, never as the ticket.
    const hash = createHash('sha256').update(PLAINTEXTS.ticket).digest('hex');
    assert.ok(
      items.some((i) => i.key === `tickets/${hash}`),
      'positive control: the ticket a proxy redeems, by its hash',
    );
  });

  test('get of each key that holds a sealed blob: refused (403) or without it', async () => {
    const keys = sealedKeys();
    let stripped = 0;
    for (const key of keys) {
      const one = await internal('get', [key]);
      if (one.status === 403) continue;
      assert.equal(one.status, 200, key);
      const item = one.body.result as Read;
      assert.deepEqual(leaks([item]), [], key);
      stripped++;
    }
    assert.ok(stripped >= 4, `records read without their sealed fields (jwks, webhook, connector, CA): ${stripped}`);
    const user = await internal('get', [auth.gatehouse.services.state.list('users/')[0]?.key]);
    assert.equal(user.status, 200, 'positive control: a user by its key');
  });

  test('the watch, its snapshot and every event after it: no sealed blob, no plaintext; users and roles whole', () => {
    const items = watchedItems();
    assert.ok(
      watched.some((l) => l.startsWith('{"events"')),
      'the records made after the watch began arrived as events',
    );
    assert.deepEqual(leaks(items), []);
    assert.ok(
      items.some((i) => i.key.startsWith('users/') && i.value.includes('"reads-carol"')),
      'positive control: a user through the watch',
    );
    assert.ok(
      items.some((i) => i.key.startsWith('roles/') && i.value.includes('"reads-db-role"')),
      'positive control: a role through the watch',
    );
    for (const prefix of ['webhooks/whk_', 'sso/connectors/', 'jwks/'])
      assert.ok(
        items.some((i) => i.key.startsWith(prefix)),
        `the ${prefix} record reached the watch (stripped)`,
      );
  });
});

describe('a sealed field under a prefix nobody listed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-reads-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const box = createSecretBox(join(dir, 'seal.key'));
  const item = (key: string, value: unknown) => ({ key, value: JSON.stringify(value), revision: 7 });

  test('is dropped wherever it sits (top level, nested, in a list), in a read and in a watch event', () => {
    const future = item('future/thing_1', {
      name: 'thing',
      token_sealed: box.seal('s3cret', 'thing_1'),
      upstream: { user: 'u', password_sealed: box.seal('pw', 'thing_1') },
      keys: ['public', box.seal('k', 'thing_1')],
    });
    const expected = { name: 'thing', upstream: { user: 'u' }, keys: ['public'] };
    assert.deepEqual(JSON.parse(asProxySees(future).value), expected);
    const [event] = withoutHidden([{ type: 'put' as const, item: future }], {});
    assert.ok(event && 'item' in event);
    assert.deepEqual(JSON.parse(event.item.value), expected);
    assert.equal(event.item.revision, 7);
  });

  test('positive control: a record without one reaches the proxy as it is, the same object', () => {
    const plain = item('future/thing_2', { name: 'v1.2', note: 'v1.abc.def.ghi', n: 3 });
    assert.equal(asProxySees(plain), plain);
    const range = [plain];
    assert.equal(withoutHidden(range, {}), range, 'no copy made when nothing is sealed');
  });
});
