// Joining proxies to a test cluster as an operator does (docs/deploy.md "Joining a proxy"): a join
// token made through the API, and — for tests that speak auth's internal API themselves, as a hostile
// proxy would — an identity joined with one, with its credential.
import { generateKeyPairSync } from 'node:crypto';
import { api } from './gatehouse.js';

/** A join token for proxies, made by the admin (POST /v1/cluster/join-tokens). */
export async function joinToken(
  auth: { url: string; adminToken: string },
  opts: { uses?: number; ttl?: string } = {},
): Promise<string> {
  const res = await api(auth.url, 'POST', '/v1/cluster/join-tokens', {
    token: auth.adminToken,
    body: { role: 'proxy', ttl: opts.ttl ?? '1h', uses: opts.uses ?? 1 },
  });
  if (res.status !== 201) throw new Error(`join token: ${res.status} ${res.text}`);
  return res.json.token as string;
}

export interface JoinedIdentity {
  /** The identity (prx_…); a call may announce it or one of its process instances (<id>-<8 hex>). */
  instance: string;
  credential: string;
  /** The headers of an internal call made as this identity. */
  headers(instance?: string | null): Record<string, string>;
}

/** Joins as a new proxy identity with a fresh key pair, as src/cluster/proxy-identity-client.ts does. */
export async function joinIdentity(auth: { url: string; adminToken: string }): Promise<JoinedIdentity> {
  const { publicKey } = generateKeyPairSync('ed25519');
  const res = await fetch(`${auth.url}/internal/v1/join`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: await joinToken(auth), public_key: publicKey.export({ format: 'jwk' }) }),
  });
  const body = (await res.json()) as { instance: string; credential: string };
  if (res.status !== 200) throw new Error(`join: ${res.status} ${JSON.stringify(body)}`);
  return {
    instance: body.instance,
    credential: body.credential,
    headers: (instance = body.instance) => ({
      'x-gatehouse-proxy-credential': body.credential,
      ...(instance ? { 'x-gatehouse-instance': instance } : {}),
    }),
  };
}

/** A join token from an auth instance known only by its URL and an admin API key (child processes). */
export async function joinTokenWithKey(url: string, apiKey: string, opts: { uses?: number } = {}): Promise<string> {
  const login = await api(url, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
  if (login.status !== 200) throw new Error(`admin login: ${login.status} ${login.text}`);
  return joinToken({ url, adminToken: login.json.access_token as string }, opts);
}
