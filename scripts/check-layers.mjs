// The layer rule of src/, written once (docs/architecture.md explains it): each folder (or top-level
// file) sits on a layer, and a file may import only from its own folder or from a lower layer —
// never up, never sideways across doors (inside proxy/: a door's folder imports proxy/common only). Within the domain layer, folders may use each other, but no
// two files may import each other in a cycle anywhere. `node scripts/check-layers.mjs` prints every
// breach and exits 1; test/layers.test.ts runs it in the suite, so CI fails on an upward import.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bottom to top. A name is a folder of src/ or a file of src/ without its extension. */
export const LAYERS = [
  ['lib', 'node-version'],
  // sdk: the client of the /v1 API (gatehouse/sdk); a client, so it may use lib and nothing of the server.
  ['config', 'rbac', 'net', 'sdk'],
  // Stores: state, then audit events (retention runs under a state lease), then recordings (whose
  // uploads are audited). They import nothing above them.
  ['backend'],
  ['audit'],
  ['recordings', 'observability'],
  // Cross-instance plumbing: Redis link, the live-session bus, instance leases.
  ['cluster'],
  ['auth'],
  // The one access checker every door asks.
  ['access'],
  // Domains: each owns its logic and records; they may use one another (no cycles). apps: application
  // access (addressing, launch codes, the identity JWT), used by the API and the app door alike. sso:
  // single sign-on connectors and the OpenID Connect sign-in, used by the API's connector and console routes.
  [
    'agents',
    'users',
    'roles',
    'resources',
    'sessions',
    'ssh-keys',
    'webhooks',
    'kube',
    'events',
    'apps',
    'mfa',
    'sso',
    'mcp',
  ],
  // The wiring of the domain services, which the doors are handed: who is calling (services-auth), the
  // console's sign-in, and what the doors need beyond the domains (services-doors), composed in services.
  ['services-auth', 'services-sign-in', 'services-doors'],
  ['services'],
  // Doors: the HTTP API (with the console's routes) and the protocol proxies. Neither imports the other.
  ['api', 'proxy'],
  // Composition and process entry.
  ['stores', 'bootstrap', 'admin-reset'],
  // The composition root, in the order it runs: the config checked (plan), the stores and services
  // opened (core), the listeners started, and server.ts over them.
  ['server-plan'],
  ['server-core'],
  ['server-listeners'],
  ['server'],
  // The command line: the server's commands start it (start.ts), the client's use the sdk only.
  ['cli'],
  ['main'],
];

export const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const root = SRC;

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** src/agents/x.ts → agents; src/server.ts → server. */
const unitOf = (file) => {
  const parts = relative(root, file).split('/');
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.ts$/, '');
};

const IMPORT =
  /^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every breach of `layers` in src/, one line each; empty when the rule holds. */
export function checkLayers(layers = LAYERS) {
  const layerOf = new Map(layers.flatMap((names, i) => names.map((n) => [n, i])));
  // Folders of the domain layer may import one another.
  const sidewaysOk = new Set(layers.find((l) => l.includes('agents')) ?? []);
  const breaches = [];
  const graph = new Map();
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8');
    const from = unitOf(file);
    const edges = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts')));
      edges.push(target);
      const to = unitOf(target);
      const sideways = doorBreach(file, target);
      if (sideways) breaches.push(`${relative(root, file)} -> ${relative(root, target)}: ${sideways}`);
      if (to === from) continue;
      const [a, b] = [layerOf.get(from), layerOf.get(to)];
      const where = `${relative(root, file)} -> ${relative(root, target)}`;
      if (a === undefined) breaches.push(`${where}: src/${from} is on no layer (add it to LAYERS)`);
      else if (b === undefined) breaches.push(`${where}: src/${to} is on no layer (add it to LAYERS)`);
      else if (b > a) breaches.push(`${where}: ${from} (layer ${a}) imports ${to} (layer ${b}), above it`);
      else if (b === a && !(sidewaysOk.has(from) && sidewaysOk.has(to)))
        breaches.push(`${where}: ${from} and ${to} are on one layer and may not import each other`);
    }
    graph.set(file, edges);
  }
  for (const cycle of cycles(graph)) breaches.push(`cycle: ${cycle.map((f) => relative(root, f)).join(' -> ')}`);
  return breaches;
}

/**
 * Inside proxy/: each door's folder (proxy/ssh, db, kube, app, mcp) may import its own folder and
 * proxy/common (the door kit), never another door; the kit imports no door. Only files directly in
 * proxy/ (the composition of several doors) may import doors.
 */
export function doorBreach(file, target) {
  const door = (f) => {
    const parts = relative(root, f).split('/');
    return parts[0] === 'proxy' && parts.length > 2 ? parts[1] : undefined;
  };
  const [a, b] = [door(file), door(target)];
  if (a === undefined || b === undefined || a === b || b === 'common') return undefined;
  return a === 'common' ? `the door kit (proxy/common) imports the ${b} door` : `the ${a} door imports the ${b} door`;
}

/** Import cycles between files (each reported once, from its first file in path order). */
function cycles(graph) {
  const found = [];
  const state = new Map(); // 1: on the stack, 2: done
  const stack = [];
  const visit = (file) => {
    state.set(file, 1);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 1) found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 2);
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const breaches = checkLayers();
  for (const b of breaches) console.log(b);
  console.log(breaches.length ? `${breaches.length} layer breach(es)` : 'layers: every import points down');
  process.exit(breaches.length ? 1 : 0);
}
