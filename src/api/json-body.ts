// The JSON body parser. Fastify's own refuses `__proto__` and `constructor.prototype` keys (they
// could poison prototypes once merged into another object) but then answers "not valid JSON",
// which sends a client looking for a syntax error. This one refuses the same keys and names them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatehouseError } from '../lib/errors.js';

// Cheap pre-checks, as secure-json-parse does: only a body whose text has such a key is walked.
const PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The JSON pointer of the first forbidden key under `root`, if any. Iterative: a body of thousands
 * of nested arrays must not overflow the stack.
 */
function forbiddenKey(root: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[root, '/body']];
  while (stack.length > 0) {
    const [value, at] = stack.pop() as [unknown, string];
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${at}/${i}`]);
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      const child = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return `${at}/__proto__`;
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))
        return `${at}/constructor/prototype`;
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push([(value as Record<string, unknown>)[key], `${at}/${escapePointer(key)}`]);
    }
  }
  return undefined;
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new GatehouseError('invalid_request', 'the body is empty but the content type is JSON');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatehouseError('invalid_request', 'the body is not valid JSON');
  }
  if (PROTO.test(text) || CONSTRUCTOR.test(text)) {
    const path = forbiddenKey(value);
    if (path) {
      const message = 'is a forbidden key: __proto__ and constructor.prototype could alter objects they reach';
      throw new GatehouseError('invalid_request', `${path} ${message}`, { errors: [{ path, message }] });
    }
  }
  return value;
}

export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (error) {
        done(error as Error);
      }
    },
  );
}
