// Preloaded (node --import) into the @modelcontextprotocol/conformance CLI that
// test/mcp-conformance.test.ts runs, so the suite's own client can reach a server through Gatehouse:
// - Node 20: the CLI's bundle imports fs.globSync (Node ≥ 22) for its tier-check command only; the
//   resolve hook hands it node:fs plus a globSync that says so (the server scenarios never call it).
// - `<app>.localhost` (the gateway's app hosts) resolves to 127.0.0.1, as browsers resolve it.
// - The suite's client sends no credential of its own: requests to GATEHOUSE_CONFORMANCE_ORIGIN get
//   `Authorization: Bearer $GATEHOUSE_CONFORMANCE_TOKEN` (the gateway never forwards it upstream).
import dns from 'node:dns';
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/'))
    return { url: 'data:text/javascript,' + encodeURIComponent("export * from 'node:fs'; export function globSync() { throw new Error('globSync needs Node 22'); }"), shortCircuit: true };
  return next(specifier, context);
}`)}`,
);

const lookup = dns.lookup;
dns.lookup = (host, options, callback) => {
  if (typeof host === 'string' && host.endsWith('.localhost')) {
    const cb = typeof options === 'function' ? options : callback;
    const all = typeof options === 'object' && options?.all;
    return process.nextTick(() => (all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
  }
  return lookup(host, options, callback);
};

const origin = process.env.GATEHOUSE_CONFORMANCE_ORIGIN;
const token = process.env.GATEHOUSE_CONFORMANCE_TOKEN;
if (origin && token) {
  const plain = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return plain(input, init);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('authorization', `Bearer ${token}`);
    return plain(input, { ...init, headers });
  };
}
