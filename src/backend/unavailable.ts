// A store that cannot be reached is a 503 the caller may retry, never a 500: this wraps a backend so
// that the failures `isUnavailable` recognizes leave it as the stable state_unavailable. (The etcd
// backend maps its client's errors itself, at each call, in etcd.ts.)
import { GatehouseError } from '../lib/errors.js';
import type { Backend } from './types.js';

export function stateUnavailable(store: string, cause: unknown): GatehouseError {
  return new GatehouseError('state_unavailable', `the state store (${store}) cannot be reached; retry`, {
    headers: { 'retry-after': '1' },
    cause,
  });
}

const CALLS = ['get', 'getRange', 'create', 'put', 'update', 'compareAndSwap', 'delete', 'deleteRange', 'atomicWrite'];

export function guardBackend(backend: Backend, store: string, isUnavailable: (error: unknown) => boolean): Backend {
  const guarded = { ...backend } as Record<string, unknown>;
  for (const name of CALLS) {
    const call = (backend as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name];
    if (!call) continue;
    guarded[name] = (...args: unknown[]) =>
      call.apply(backend, args).catch((error: unknown) => {
        throw isUnavailable(error) ? stateUnavailable(store, error) : error;
      });
  }
  return guarded as unknown as Backend;
}

/**
 * node-postgres failures that mean "no usable server": the socket (refused, reset, timed out), the
 * pool's own timeout, and SQLSTATE classes 08 (connection exception) and 57P (server shutting down).
 */
export function pgUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE)$/.test(code)) return true;
  if (code.startsWith('08') || code.startsWith('57P')) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    message,
  );
}
