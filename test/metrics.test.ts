// The metrics listener over real HTTP: the exposition is parsed (text format 0.0.4), not grepped,
// and each metric is checked against what the test itself did to the server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { startGatehouse } from '../src/server.js';
import { ADMIN_KEY, api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { selfSignedCert } from './helpers/tls.js';

// ---- a small parser of the Prometheus text format -------------------------------------------

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

// Values are read as Prometheus reads them (Go's ParseFloat): NaN and Inf in any case, and
// prom-client writes NaN as "Nan".
function parseValue(text: string): number {
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  const n = Number(text);
  if (text.trim() === '' || Number.isNaN(n)) throw new Error(`not a sample value: ${JSON.stringify(text)}`);
  return n;
}

function parseSample(line: string): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  if (!name) throw new Error(`no metric name in ${JSON.stringify(line)}`);
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const label = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i))?.[0];
      if (!label || line[i + label.length] !== '=' || line[i + label.length + 1] !== '"') {
        throw new Error(`bad label at ${i} in ${JSON.stringify(line)}`);
      }
      i += label.length + 2;
      let value = '';
      for (;;) {
        const c = line[i++];
        if (c === undefined) throw new Error(`unterminated label value in ${JSON.stringify(line)}`);
        if (c === '"') break;
        if (c === '\\') {
          const e = line[i++];
          value += e === 'n' ? '\n' : e === '\\' ? '\\' : e === '"' ? '"' : `\\${e}`;
        } else value += c;
      }
      assert.ok(!(label in labels), `label ${label} repeated in ${line}`);
      labels[label] = value;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new Error(`expected , or } at ${i} in ${JSON.stringify(line)}`);
    }
    i++;
  }
  if (line[i] !== ' ') throw new Error(`expected a space before the value in ${JSON.stringify(line)}`);
  const [value, timestamp, ...rest] = line
    .slice(i + 1)
    .trim()
    .split(/\s+/);
  if (value === undefined || rest.length > 0 || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) {
    throw new Error(`bad value or timestamp in ${JSON.stringify(line)}`);
  }
  return { name, labels, value: parseValue(value) };
}

/** The family a sample belongs to: histogram and summary samples carry a suffix. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = types.get(base);
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return undefined;
}

function parseExposition(text: string): Exposition {
  const exp: Exposition = { types: new Map(), help: new Map(), samples: [] };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest = ''] = meta as unknown as [string, string, string, string?];
      const map = kind === 'HELP' ? exp.help : exp.types;
      assert.ok(!map.has(name), `${kind} for ${name} appears twice`);
      if (kind === 'TYPE') assert.match(rest, /^(counter|gauge|histogram|summary|untyped)$/, line);
      map.set(name, rest);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = parseSample(line);
    assert.ok(familyOf(sample.name, exp.types), `sample ${sample.name} comes before or without its TYPE`);
    exp.samples.push(sample);
  }
  return exp;
}

const matches = (s: Sample, name: string, labels: Record<string, string>) =>
  s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);

/** Sum of the samples of that name whose labels include the given ones (0 when there are none). */
function sum(exp: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exp.samples.filter((s) => matches(s, name, labels)).reduce((a, s) => a + s.value, 0);
}

/** The one sample of that name with exactly these labels' values (others may differ). */
function one(exp: Exposition, name: string, labels: Record<string, string> = {}): Sample {
  const found = exp.samples.filter((s) => matches(s, name, labels));
  assert.equal(found.length, 1, `one sample of ${name} ${JSON.stringify(labels)}, found ${found.length}`);
  return found[0] as Sample;
}

// ---- helpers --------------------------------------------------------------------------------

async function scrape(base: string | undefined): Promise<Exposition> {
  assert.ok(base, 'the metrics listener is running');
  const res = await fetch(`${base}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4; charset=utf-8$/);
  return parseExposition(await res.text());
}

/** Scrapes until the check passes (an onResponse observation lands just after the reply). */
async function scrapeUntil(base: string | undefined, check: (e: Exposition) => boolean): Promise<Exposition> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const exp = await scrape(base);
    if (check(exp) || Date.now() > deadline) return exp;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const SEED_METRICS = [
  ['auth_cluster_health', 'gauge'],
  ['active_connections', 'gauge'],
  ['failed_logins', 'counter'],
  ['session_duration_seconds', 'histogram'],
  ['certificate_expiry_seconds', 'gauge'],
] as const;

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// ---- tests ----------------------------------------------------------------------------------

test('the parser reads labels with escapes, special values and histogram suffixes', () => {
  const exp = parseExposition(
    [
      '# HELP x_total a counter',
      '# TYPE x_total counter',
      'x_total{a="q\\"uote",b="back\\\\slash",c="new\\nline"} 3 1700000000000',
      '# TYPE h histogram',
      'h_bucket{le="+Inf"} 2',
      'h_sum 0.5',
      'h_count 2',
      '# TYPE g gauge',
      'g NaN',
      '# TYPE g2 gauge',
      'g2 Nan',
      '',
    ].join('\n'),
  );
  assert.deepEqual(one(exp, 'x_total').labels, { a: 'q"uote', b: 'back\\slash', c: 'new\nline' });
  assert.equal(one(exp, 'x_total').value, 3);
  assert.equal(one(exp, 'h_count').value, 2);
  assert.ok(Number.isNaN(one(exp, 'g').value));
  assert.ok(Number.isNaN(one(exp, 'g2').value));
  assert.throws(() => parseExposition('# TYPE y gauge\ny{a="1} 2'));
  assert.throws(() => parseExposition('z 1'), /without its TYPE/);
  assert.throws(() => parseExposition('# TYPE y gauge\ny abc'));
});

test('GET /metrics serves the seed metrics under the default prefix, and 404 problem+json on other paths', async () => {
  const exp = await scrape(server.metricsUrl);
  for (const [name, type] of SEED_METRICS) {
    assert.equal(exp.types.get(`gatehouse_${name}`), type, `gatehouse_${name} is a ${type}`);
    assert.ok(exp.help.get(`gatehouse_${name}`), `gatehouse_${name} has help text`);
  }
  for (const name of ['http_request_duration_seconds', 'audit_write_duration_seconds']) {
    assert.equal(exp.types.get(`gatehouse_${name}`), 'histogram');
  }
  assert.equal(exp.types.get('gatehouse_audit_queue_depth'), 'gauge');
  assert.ok(exp.types.has('gatehouse_process_cpu_user_seconds_total'), 'process metrics carry the prefix');
  assert.ok(exp.types.has('gatehouse_nodejs_eventloop_lag_seconds'));
  assert.ok(
    exp.samples.every((s) => s.name.startsWith('gatehouse_')),
    'every metric carries the prefix',
  );
  assert.equal(
    exp.samples.filter((s) => s.name === 'gatehouse_certificate_expiry_seconds').length,
    0,
    'no certificate without TLS',
  );

  for (const [method, path] of [
    ['GET', '/'],
    ['GET', '/v1/agents'],
    // Other methods on /metrics itself answer 405 with Allow (test/strict-input-api.test.ts).
  ]) {
    const res = await api(server.metricsUrl as string, method as string, path as string);
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(res.json.code, 'not_found');
    assert.equal(res.json.status, 404);
  }
});

test('auth_cluster_health is 1 while the backend and the audit store answer', async () => {
  const exp = await scrape(server.metricsUrl);
  assert.equal(one(exp, 'gatehouse_auth_cluster_health').value, 1);
});

test('failed_logins grows by exactly the number of failed token requests', async () => {
  const before = sum(await scrape(server.metricsUrl), 'gatehouse_failed_logins');
  for (let i = 0; i < 3; i++) {
    const res = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: `ghk_not-a-real-key-${i}` } });
    assert.equal(res.status, 401);
  }
  const ok = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
  assert.equal(ok.status, 200, 'a successful login does not count');
  const invalid = await api(server.url, 'POST', '/v1/auth/token', { body: {} });
  assert.equal(invalid.status, 400, 'a malformed request is not a failed login');
  const afterwards = sum(await scrape(server.metricsUrl), 'gatehouse_failed_logins');
  assert.equal(afterwards - before, 3);
});

test('http_request_duration_seconds counts requests by route pattern, status and listener', async () => {
  const labels = { method: 'GET', route: '/v1/agents', status: '200', listener: 'auth' };
  const before = sum(await scrape(server.metricsUrl), 'gatehouse_http_request_duration_seconds_count', labels);
  for (let i = 0; i < 4; i++) {
    assert.equal((await api(server.url, 'GET', '/v1/agents', { token: server.adminToken })).status, 200);
  }
  const missing = await api(server.url, 'GET', '/v1/agents/agent_00000000000000000000000000', {
    token: server.adminToken,
  });
  assert.equal(missing.status, 404);
  assert.equal((await api(server.url, 'GET', '/v1/no-such-thing/12345')).status, 404);
  assert.equal((await api(server.webUrl, 'GET', '/webapi/ping')).status, 200);

  const exp = await scrapeUntil(
    server.metricsUrl,
    (e) =>
      sum(e, 'gatehouse_http_request_duration_seconds_count', labels) - before >= 4 &&
      sum(e, 'gatehouse_http_request_duration_seconds_count', { route: '/webapi/ping', listener: 'web' }) >= 1,
  );
  assert.equal(sum(exp, 'gatehouse_http_request_duration_seconds_count', labels) - before, 4);
  const bucket = one(exp, 'gatehouse_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' });
  assert.equal(bucket.value, sum(exp, 'gatehouse_http_request_duration_seconds_count', labels));
  assert.ok(sum(exp, 'gatehouse_http_request_duration_seconds_sum', labels) > 0);
  assert.ok(
    sum(exp, 'gatehouse_http_request_duration_seconds_count', { route: '/v1/agents/:id', status: '404' }) >= 1,
    'a 404 from a matched route keeps its pattern',
  );
  assert.ok(
    sum(exp, 'gatehouse_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }) >= 1,
    'an unmatched URL is labelled "unmatched"',
  );
  assert.equal(
    sum(exp, 'gatehouse_http_request_duration_seconds_count', {
      status: '200',
      route: '/webapi/ping',
      listener: 'web',
    }),
    1,
  );
  const routes = new Set(
    exp.samples.filter((s) => s.name === 'gatehouse_http_request_duration_seconds_count').map((s) => s.labels.route),
  );
  for (const route of routes) {
    assert.ok(route === 'unmatched' || !/agent_0000|no-such-thing/.test(route ?? ''), `raw URL ${route}`);
  }
});

test('active_connections counts an open keep-alive connection on the auth listener', async () => {
  const connections = (e: Exposition) => sum(e, 'gatehouse_active_connections', { listener: 'auth' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
    const open = await scrape(server.metricsUrl);
    assert.ok(connections(open) >= 1, `auth connections ${connections(open)}`);
    assert.ok(open.samples.some((s) => s.name === 'gatehouse_active_connections' && s.labels.listener === 'web'));
    agent.destroy();
    const closed = await scrapeUntil(server.metricsUrl, (e) => connections(e) < connections(open));
    assert.ok(connections(closed) < connections(open), 'closing the connection lowers the gauge');
  } finally {
    agent.destroy();
  }
});

test('audit writes are timed, and nothing stays queued', async () => {
  const before = await scrape(server.metricsUrl);
  const created = await api(server.url, 'POST', '/v1/users', {
    token: server.adminToken,
    body: { name: 'metrics-audited', roles: ['auditor'] },
  });
  assert.equal(created.status, 201);
  const exp = await scrape(server.metricsUrl);
  const count = (e: Exposition) => sum(e, 'gatehouse_audit_write_duration_seconds_count');
  assert.ok(count(exp) > count(before), `audit writes ${count(before)} → ${count(exp)}`);
  assert.ok(sum(exp, 'gatehouse_audit_write_duration_seconds_sum') > 0);
  assert.equal(one(exp, 'gatehouse_audit_queue_depth').value, 0);
});

test('/readyz and /healthz still answer beside the metrics', async () => {
  const ready = await api(server.url, 'GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.equal(ready.json.status, 'ok');
  assert.equal((await api(server.url, 'GET', '/healthz')).status, 200);
});

test('metrics settings: prefix, addr and enabled come from config and GATEHOUSE_METRICS_*', async () => {
  const defaults = loadConfig({ env: {} });
  assert.equal(defaults.metrics_enabled, true);
  assert.equal(defaults.metrics_addr, '127.0.0.1:9090');
  assert.equal(defaults.metrics_prefix, 'gatehouse');
  const fromEnv = loadConfig({
    env: {
      GATEHOUSE_METRICS_ENABLED: 'false',
      GATEHOUSE_METRICS_ADDR: '127.0.0.1:9999',
      GATEHOUSE_METRICS_PREFIX: 'acme',
    },
  });
  assert.equal(fromEnv.metrics_enabled, false);
  assert.equal(fromEnv.metrics_addr, '127.0.0.1:9999');
  assert.equal(fromEnv.metrics_prefix, 'acme');
  assert.throws(
    () => loadConfig({ env: { GATEHOUSE_METRICS_PREFIX: '9-lives' } }),
    (e: Error) => e instanceof ConfigError && /metrics_prefix \(or GATEHOUSE_METRICS_PREFIX\)/.test(e.message),
  );

  const dataDir = tempDir('gatehouse-metrics-');
  await assert.rejects(
    startTestServer({ metrics_addr: '0.0.0.0:0' }, { dataDir }),
    (e: Error) => e instanceof ConfigError && /metrics_addr: 0\.0\.0\.0 is not loopback/.test(e.message),
  );
});

test('a custom prefix names every metric; metrics_enabled: false starts no listener', async () => {
  const custom = await startTestServer({ metrics_prefix: 'acme_gate' });
  try {
    await api(custom.url, 'POST', '/v1/auth/token', { body: { api_key: 'ghk_wrong' } });
    const exp = await scrape(custom.metricsUrl);
    for (const [name, type] of SEED_METRICS) assert.equal(exp.types.get(`acme_gate_${name}`), type);
    assert.ok(
      exp.types.has('acme_gate_process_resident_memory_bytes') || exp.types.has('acme_gate_process_cpu_seconds_total'),
    );
    assert.ok(
      exp.samples.every((s) => s.name.startsWith('acme_gate_')),
      'no metric keeps the default prefix',
    );
    assert.equal(one(exp, 'acme_gate_failed_logins').value, 1);
    assert.equal(one(exp, 'acme_gate_auth_cluster_health').value, 1);
  } finally {
    await custom.stop();
  }

  const off = await startTestServer({ metrics_enabled: false });
  try {
    assert.equal(off.gatehouse.metricsUrl, undefined);
    assert.equal(off.metricsUrl, undefined);
    assert.equal((await api(off.url, 'GET', '/v1/agents', { token: off.adminToken })).status, 200);
  } finally {
    await off.stop();
  }
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; text: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('with TLS, certificate_expiry_seconds reports the time to notAfter and every listener speaks https', {
  skip: hasOpenssl() ? false : 'openssl is not installed',
}, async () => {
  const dir = tempDir('gatehouse-tls-');
  const { certFile, keyFile } = selfSignedCert(dir);
  const ca = readFileSync(certFile);
  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: join(dir, 'data'),
      auth_addr: '127.0.0.1:0',
      web_addr: '127.0.0.1:0',
      db_addr: '127.0.0.1:0',
      metrics_addr: '127.0.0.1:0',
      bootstrap_api_key: ADMIN_KEY,
      log_level: 'silent',
      tls: { cert_file: certFile, key_file: keyFile },
    },
  });
  const gatehouse = await startGatehouse(config, { logger: pino({ level: 'silent' }) });
  try {
    assert.match(gatehouse.authUrl ?? '', /^https:/);
    assert.match(gatehouse.metricsUrl ?? '', /^https:/);
    const ready = await httpsGet(`${gatehouse.authUrl}/readyz`, ca);
    assert.equal(ready.status, 200, 'the auth listener serves https');
    const res = await httpsGet(`${gatehouse.metricsUrl}/metrics`, ca);
    assert.equal(res.status, 200);
    assert.match(res.type, /^text\/plain; version=0\.0\.4/);
    const exp = parseExposition(res.text);
    const expiry = one(exp, 'gatehouse_certificate_expiry_seconds', { name: 'tls' }).value;
    const twoDays = 2 * 86_400;
    assert.ok(Math.abs(expiry - twoDays) < 300, `expiry ${expiry} s is about two days`);
    assert.ok(sum(exp, 'gatehouse_active_connections', { listener: 'auth' }) >= 0);
  } finally {
    await gatehouse.close();
  }
});
