// Module hooks (node:module register) for bench/serve-gatehouse-audit.ts's no-op mode: Gatehouse's
// audit store opener, src/audit/open.ts, resolves to bench/noop-audit-open.ts instead.
const NOOP = new URL('./noop-audit-open.ts', import.meta.url).href;
const OPENER = new URL('../src/audit/open.ts', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  return resolved.url === OPENER ? { ...resolved, url: NOOP, shortCircuit: true } : resolved;
}
