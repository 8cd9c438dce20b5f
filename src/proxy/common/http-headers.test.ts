import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditedPath } from '../app/app-door.js';
import { appCookies, downstreamHeaders, upstreamHeaders } from './http-headers.js';

const who = { assertion: 'signed.jwt', clientAddr: '10.0.0.9', proto: 'https' as const, publicHost: 'grafana.gh.test' };

test('no Gatehouse credential, hop-by-hop or client-said forwarding header reaches the app', () => {
  const out = upstreamHeaders(
    {
      host: 'grafana.gh.test',
      authorization: 'Bearer gha_0123456789abABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq',
      cookie: 'gatehouse_app=s1; theme=dark; __Host-gatehouse_session=gha_x; GATEHOUSE_APP_STATE=z; sid=42',
      connection: 'keep-alive, x-secret-hop',
      'x-secret-hop': 'drop me',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'x-forwarded-for': '6.6.6.6',
      'x-real-ip': '6.6.6.6',
      forwarded: 'for=6.6.6.6',
      'gatehouse-jwt-assertion': 'forged',
      accept: 'text/html',
    },
    who,
  );
  assert.deepEqual(out, {
    accept: 'text/html',
    cookie: 'theme=dark; sid=42',
    'x-forwarded-for': '10.0.0.9',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'grafana.gh.test',
    'gatehouse-jwt-assertion': 'signed.jwt',
  });
});

test("the app's own Authorization (not a Gatehouse token) goes through; the public Host when asked", () => {
  const out = upstreamHeaders({ authorization: 'Basic YTpi' }, { ...who, host: 'grafana.gh.test' });
  assert.equal(out.authorization, 'Basic YTpi');
  assert.equal(out.host, 'grafana.gh.test');
  assert.equal(appCookies('gatehouse_app=x'), undefined);
});

test("the app's answer loses hop-by-hop headers and any Set-Cookie of Gatehouse's names", () => {
  assert.deepEqual(
    downstreamHeaders({
      'content-type': 'text/html',
      connection: 'close',
      'transfer-encoding': 'chunked',
      'set-cookie': ['a=1; Path=/', '__Host-gatehouse_app=x; Path=/', 'gatehouse_app_state=y'],
    }),
    { 'content-type': 'text/html', 'set-cookie': ['a=1; Path=/'] },
  );
});

test('audited paths keep query parameter names, never their values', () => {
  assert.equal(auditedPath('/search?q=secret&page=2&flag'), '/search?q&page&flag');
  assert.equal(auditedPath('/plain'), '/plain');
  assert.equal(auditedPath(`/${'x'.repeat(600)}`).length, 512);
});
