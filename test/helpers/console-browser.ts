// A browser's side of the console's cookie session, reduced to what the API tests need: the cookies
// the web listener sets (kept, and dropped when cleared) and the CSRF header the console sends.
import assert from 'node:assert/strict';
import { api, type Reply, type TestServer } from './gatehouse.js';

export const CSRF = { 'x-gatehouse-csrf': '1' };

export function consoleBrowser(server: () => TestServer) {
  const jar = new Map<string, string>();
  const call = async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const reply = await api(server().webUrl, method, path, {
      headers: { ...CSRF, ...(cookie ? { cookie } : {}) },
      ...(body === undefined ? {} : { body }),
    });
    for (const line of reply.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = (pair as string).split('=') as [string, string];
      if (value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return reply;
  };
  return { call, jar, access: () => jar.get('__Host-gatehouse_session') as string };
}

/** Roles that let their holders list events, each with its sign-in options (require_mfa…). */
export async function rolesWithOptions(
  admin: (method: string, path: string, body?: unknown) => Promise<Reply>,
  roles: Record<string, Record<string, boolean>>,
): Promise<void> {
  for (const [name, options] of Object.entries(roles)) {
    const role = await admin('POST', '/v1/roles', {
      name,
      allow: { rules: [{ resources: ['events'], verbs: ['list'] }] },
      options,
    });
    assert.equal(role.status, 201, role.text);
  }
}
