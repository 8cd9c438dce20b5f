// Serves the built console (web/dist) from memory: hashed assets cached for a year, index.html for
// every client route and never cached, each compressed once at start, a strict CSP on the pages.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The pages' Content-Security-Policy: nothing inline, nothing from elsewhere. `wasm-unsafe-eval`
 * lets the recording player compile its terminal emulator (WebAssembly), and no JavaScript eval.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

export interface StaticFile {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  /** Hashed file names never change content: cache them for good. */
  immutable: boolean;
}

export interface ConsoleFiles {
  index: StaticFile | undefined;
  assets: Map<string, StaticFile>;
}

function list(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.')) return []; // build stamps and the manifest are not served
    const p = join(dir, e.name);
    return e.isDirectory() ? list(p) : [p];
  });
}

function load(path: string, immutable: boolean): StaticFile {
  const body = readFileSync(path);
  const type = TYPES[extname(path)] ?? 'application/octet-stream';
  const compressible = /text|javascript|json|svg/.test(type) && body.length > 1024;
  return { body, type, immutable, ...(compressible ? { gzip: gzipSync(body, { level: 9 }) } : {}) };
}

/** Reads web/dist once. A missing build leaves `index` undefined: the listener says how to build it. */
export function loadConsoleFiles(distDir: string): ConsoleFiles {
  const assets = new Map<string, StaticFile>();
  if (!existsSync(join(distDir, 'index.html'))) return { index: undefined, assets };
  for (const file of list(distDir)) {
    const url = `/${relative(distDir, file).split(sep).join('/')}`;
    if (url !== '/index.html') assets.set(url, load(file, url.startsWith('/assets/')));
  }
  return { index: load(join(distDir, 'index.html'), false), assets };
}
