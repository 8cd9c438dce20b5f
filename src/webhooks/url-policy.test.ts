// The webhook URL policy as a pure function, range by range, each refusal beside a positive control.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { checkWebhookUrl, nonPublicRange, publicOnlyLookup, type UrlPolicy } from './url-policy.js';

const none: UrlPolicy = { allowedHosts: [] };

describe('nonPublicRange', () => {
  const refused = [
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456:789a::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
    '2001:db8::1',
  ];
  for (const ip of refused) test(`${ip} is not public`, () => assert.ok(nonPublicRange(ip), ip));

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '169.253.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ];
  for (const ip of allowed) test(`${ip} is public`, () => assert.equal(nonPublicRange(ip), undefined, ip));
});

describe('checkWebhookUrl', () => {
  const reason = (url: string, policy = none) => {
    const v = checkWebhookUrl(url, policy);
    return v.ok ? undefined : v.reason;
  };

  test('https to a public name or address passes', () => {
    assert.equal(reason('https://hooks.example.com/in'), undefined);
    assert.equal(reason('https://8.8.8.8/in'), undefined);
    assert.equal(reason('https://[2606:4700:4700::1111]:8443/in'), undefined);
  });

  test('http, other schemes, credentials and garbage are refused', () => {
    assert.match(reason('http://hooks.example.com/') ?? '', /https/);
    assert.match(reason('ftp://hooks.example.com/') ?? '', /https/);
    assert.match(reason('file:///etc/passwd') ?? '', /https/);
    assert.match(reason('https://u:p@hooks.example.com/') ?? '', /credentials/);
    assert.match(reason('not a url') ?? '', /valid/);
  });

  test('non-public literals in every spelling are refused', () => {
    for (const url of [
      'https://10.0.0.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
      'https://100.64.0.1/',
      'https://2130706433/', // 127.0.0.1 as one number; the URL parser normalizes it
      'https://0x7f.1/',
      'https://127.1/',
      'https://localhost/',
      'https://LOCALHOST./',
      'https://app.localhost/',
    ]) {
      assert.ok(reason(url), url);
    }
  });

  test('an allow-listed host may use http and a private address; others may not', () => {
    const policy = { allowedHosts: ['127.0.0.1', '[::1]', 'Hooks.Internal'] };
    assert.equal(reason('http://127.0.0.1:8080/x', policy), undefined);
    assert.equal(reason('http://[::1]:8080/x', policy), undefined);
    assert.equal(reason('http://hooks.internal/x', policy), undefined);
    assert.ok(reason('http://127.0.0.2/x', policy));
    assert.ok(reason('https://10.0.0.1/x', policy));
  });
});

describe('publicOnlyLookup (the delivery-time check of resolved names)', () => {
  const answering =
    (...addresses: string[]) =>
    (_h: string, _o: unknown, cb: (e: null, a: LookupAddress[]) => void) =>
      cb(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
  const lookup = (addresses: string[], all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((resolve) =>
      publicOnlyLookup(answering(...addresses))('hooks.example.com', { all }, (error, result) =>
        resolve({ error, result }),
      ),
    );

  test('a name resolving to a private address (DNS rebinding) is refused', async () => {
    const { error } = await lookup(['10.0.0.7'], false);
    assert.match(error?.message ?? '', /resolves to 10\.0\.0\.7.*refused/);
  });

  test('one private answer among public ones is enough to refuse', async () => {
    const { error } = await lookup(['8.8.8.8', '::ffff:169.254.169.254'], true);
    assert.match(error?.message ?? '', /refused/);
  });

  test('positive control: public answers are passed on as the connection will use them', async () => {
    assert.deepEqual(await lookup(['8.8.8.8'], false), { error: null, result: '8.8.8.8' });
    const all = await lookup(['8.8.8.8', '2606:4700:4700::1111'], true);
    assert.equal(all.error, null);
    assert.equal((all.result as LookupAddress[]).length, 2);
  });
});
