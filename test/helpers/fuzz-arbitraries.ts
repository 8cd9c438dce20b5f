// fast-check generators for the fuzz tests: path segments, query strings, Authorization headers,
// JSON bodies (random, hostile and schema-shaped), content types and invalid JSON text.
import fc from 'fast-check';

/** Percent-encodes every byte of the UTF-8 form except the unreserved characters (never throws). */
export function pctEncode(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const ID_PREFIXES = ['user_', 'role_', 'agent_', 'db_', 'srv_', 'app_', 'sess_', 'evt_', 'key_', 'req_', 'cred_'];

/** Something with the shape of a Gatehouse id (prefix + 26 base32 characters). */
export const idLike = fc
  .tuple(fc.constantFrom(...ID_PREFIXES), fc.string({ unit: fc.constantFrom(...BASE32), minLength: 26, maxLength: 26 }))
  .map(([p, s]) => p + s);

const b64url = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
  minLength: 43,
  maxLength: 43,
});
/** Something with the shape of a Gatehouse secret (API key, access or refresh token) that is not one. */
export const secretLike = fc.tuple(fc.constantFrom('ghk_', 'gha_', 'ghr_'), b64url).map(([p, s]) => p + s);

/** Percent-encoding garbage: truncated or invalid escapes, overlong UTF-8, NUL. */
export const pctGarbage = fc
  .array(fc.constantFrom('%', '%E0', '%A4', '%A', '%2', '%G1', '%%', '%C3', '%C0%AF', '%FF', '%00', 'a', '.', '%u00'), {
    minLength: 1,
    maxLength: 8,
  })
  .map((a) => a.join(''));

export const SPECIAL_SEGMENTS = [
  '',
  '.',
  '..',
  '...',
  '%2e%2e',
  '%2E%2E%2F',
  '%2F',
  '%2f..%2f..%2fetc%2fpasswd',
  '..%2F..%2F',
  '%5C..%5C',
  '..;',
  '%00',
  '%0A',
  '%0d%0a',
  '%20',
  '+',
  '~',
  '*',
  ';',
  ',',
  'a;b=c',
  '%3B',
  '%23',
  '%3F',
  '%25',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%zz',
  '%u0041',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '0',
  '-1',
  '1e309',
  'admin',
  'auditor',
  'user_',
  'USER_01ABCDEFGHJKMNPQRSTVWXYZ0',
  'con',
  '%27',
  '%22',
  '%3Cscript%3E',
  '%24%7Bjndi%7D',
  ':id',
  '%7Bid%7D',
  '@',
  '%F0%9F%92%A9',
  '%E2%80%AE',
  '%EF%BB%BF',
];

/** What goes into a `:param`: ids, random (unicode) text, very long values, traversal, encoding garbage. */
export const pathSegment = fc.oneof(
  { weight: 4, arbitrary: idLike },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(pctEncode) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(pctEncode) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,90}$/) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 3000 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 500 }).map((n) => 'user_'.concat('%C3%A9'.repeat(n))) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_SEGMENTS) },
  { weight: 2, arbitrary: pctGarbage },
);

// ---------------------------------------------------------------------------------------------
// Query strings

const QUERY_KEYS = [
  'page',
  'per_page',
  'name',
  'role',
  'status',
  'owner',
  'label',
  'kind',
  'type',
  'actor',
  'target',
  'success',
  'from',
  'to',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'a[]',
  'page[]',
  'per_page[0]',
  'label[]',
  'per_page%5B%5D',
  '',
  '%',
  '%E0%A4%A',
  'PAGE',
  'per%5Fpage',
  'format',
  'cursor',
  'limit',
  'offset',
];

const QUERY_VALUES = [
  '0',
  '1',
  '-1',
  '100',
  '101',
  '1000001',
  'abc',
  '1e2',
  '0x10',
  '1.5',
  '01',
  '+1',
  '%201',
  '9007199254740993',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  '',
  '%00',
  '%E0%A4%A',
  '%',
  '%zz',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '%5B1%5D',
  '2024-01-01T00:00:00Z',
  '2024-13-45T99:99:99Z',
  '1970-01-01T00:00:00.000Z',
  '2016-12-31T23:59:60Z',
  '2024-01-01t00:00:00z',
  '275760-09-13T00:00:00Z',
  'env=dev',
  'env%3Ddev',
  '=',
  'a=',
  '=b',
  '*',
  'auth.*',
  'auth.token.issued',
  'active',
  'suspended',
  'database',
  'server',
  'app',
  'ndjson',
  'json',
  'csv',
];

export const queryKey = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...QUERY_KEYS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(pctEncode) },
  { weight: 1, arbitrary: pctGarbage },
);
export const queryValue = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...QUERY_VALUES) },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 105 }).map(String) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(pctEncode) },
  { weight: 1, arbitrary: pctGarbage },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 4000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: idLike },
);
const queryPair = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(queryKey, queryValue).map(([k, v]) => `${k}=${v}`) },
  { weight: 1, arbitrary: queryKey },
);
// Raw characters a client may put in a request target (printable ASCII without space).
const RAW_QUERY_CHARS = [..."&=%?#[]+;,/:@!$'()*abc019_-.~"];

/** A query string, with its leading "?" (or empty). */
export const queryString = fc.oneof(
  { weight: 6, arbitrary: fc.array(queryPair, { maxLength: 8 }).map((a) => (a.length ? `?${a.join('&')}` : '')) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: fc.constantFrom(...RAW_QUERY_CHARS), maxLength: 40 }).map((s) => `?${s}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&', '?&&&', '?=', '?==', '?#', '?%', '?per_page=1&per_page=2') },
);

// ---------------------------------------------------------------------------------------------
// Authorization

/** How a request authenticates; `admin` means the admin's real access token, filled in at send time. */
export type AuthChoice =
  | { kind: 'admin' }
  | { kind: 'none' }
  /** The admin token, altered: `valid` says whether the server must still accept it. */
  | { kind: 'admin-variant'; how: string; valid: boolean }
  | { kind: 'header'; value: string };

/** Characters Node lets us put in a header value: tab, printable ASCII, and 0x80-0xff. */
const HEADER_CHARS = [
  '\t',
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 0x80 }, (_, i) => String.fromCharCode(0x80 + i)),
];
export const headerText = (maxLength: number) => fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength });

const garbageAuth = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'Bearer',
    'Bearer ',
    'Bearer  ',
    'bearer',
    'Bearer null',
    'Bearer undefined',
    'Bearer x y',
    'Bearer\tx',
    'Token abc',
    'Basic',
    'Basic Zm9vOmJhcg==',
    'Basic YWRtaW46YWRtaW4=',
    'Basic ====',
    'Digest username="admin", realm="x"',
    'Negotiate YII=',
    'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
    'Bearer gha_',
    'Bearer ghk_',
    'Bearer gha_' + 'A'.repeat(42),
    'Bearer gha_' + 'A'.repeat(44),
    'Bearer gha_' + '+'.repeat(43),
    'Bearer ,',
  ),
  headerText(60).map((s) => `Bearer ${s}`),
  headerText(60),
  secretLike.map((s) => `Bearer ${s}`),
  secretLike.map((s) => `bEaReR ${s}`),
  fc.base64String({ maxLength: 40 }).map((s) => `Basic ${s}`),
  // Very long, but under Node's 16 KiB limit on the head of a request.
  fc.integer({ min: 500, max: 12_000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
);

export const authChoice: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'admin' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: 'admin-variant' as const, how: 'lowercase-scheme', valid: true },
      { kind: 'admin-variant' as const, how: 'append', valid: false },
      { kind: 'admin-variant' as const, how: 'truncate', valid: false },
      { kind: 'admin-variant' as const, how: 'flip-last', valid: false },
      { kind: 'admin-variant' as const, how: 'double-space', valid: false },
      { kind: 'admin-variant' as const, how: 'no-scheme', valid: false },
      { kind: 'admin-variant' as const, how: 'twice', valid: false },
    ),
  },
  { weight: 3, arbitrary: garbageAuth.map((value) => ({ kind: 'header' as const, value })) },
);

/** The Authorization header for a choice, given a valid admin token. */
export function authHeader(choice: AuthChoice, token: string): string | undefined {
  switch (choice.kind) {
    case 'none':
      return undefined;
    case 'admin':
      return `Bearer ${token}`;
    case 'header':
      return choice.value;
    case 'admin-variant':
      switch (choice.how) {
        case 'lowercase-scheme':
          return `bearer ${token}`;
        case 'append':
          return `Bearer ${token}x`;
        case 'truncate':
          return `Bearer ${token.slice(0, -1)}`;
        case 'flip-last':
          return `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
        case 'double-space':
          return `Bearer  ${token}`;
        case 'no-scheme':
          return token;
        default:
          return `Bearer ${token} ${token}`;
      }
  }
}

export const authIsValid = (choice: AuthChoice): boolean =>
  choice.kind === 'admin' || (choice.kind === 'admin-variant' && choice.valid);

// ---------------------------------------------------------------------------------------------
// Bodies

/** String lengths around the limits the schemas declare (64, 255, 512, 1024, 2048…). */
export const LIMIT_LENGTHS = [63, 64, 65, 80, 81, 255, 256, 320, 321, 511, 512, 513, 1023, 1024, 1025, 2048, 2049];

export const hugeString = fc.oneof(
  fc
    .constantFrom(...LIMIT_LENGTHS)
    .chain((n) => fc.constantFrom('a', 'é', '😀', '\u0000', '"', '\\').map((c) => c.repeat(n))),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'x'.repeat(n)),
);

export const POLLUTION_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  '__defineGetter__',
  'hasOwnProperty',
  'toString',
];

/** JSON text of an object written pair by pair, so `__proto__` and duplicate keys survive. */
export function objectText(pairs: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
}

/** Hostile JSON texts: prototype pollution, deep nesting, huge strings, odd numbers. */
export const hostileJsonText = fc.oneof(
  fc.constantFrom(
    '{"__proto__":{"isAdmin":true}}',
    '{"name":"a","__proto__":{"roles":["admin"]}}',
    '{"constructor":{"prototype":{"isAdmin":true}}}',
    '{"name":"a","roles":[],"constructor":{"prototype":{"polluted":1}}}',
    '{"traits":{"__proto__":["x"]},"name":"b"}',
    '{"labels":{"constructor":"x","__proto__":"y"}}',
    '{"name":"a","name":"b"}',
    '{"ttl":1e309}',
    '{"ttl":-0}',
    '{"ttl":1.0000000000000002}',
    '{"ttl":9007199254740993}',
    '{"ttl":"3600"}',
    '{"api_key":null}',
    '{"refresh_token":["ghr_x"]}',
    '{"token":{}}',
    '[]',
    '[{}]',
    'null',
    'true',
    '0',
    '"string"',
    '{}',
  ),
  fc
    .tuple(fc.constantFrom(...POLLUTION_KEYS), fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }))
    .map(([k, v, w]) =>
      objectText([
        [k, v],
        ['name', w],
      ]),
    ),
  // Deep nesting: arrays, objects, and a pollution key at the bottom.
  fc
    .tuple(fc.integer({ min: 1, max: 120_000 }), fc.constantFrom('array', 'object', 'object-proto', 'array-ctor'))
    .map(([depth, shape]) => {
      switch (shape) {
        case 'array':
          return `${'['.repeat(depth)}${']'.repeat(depth)}`;
        case 'object':
          return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
        case 'object-proto':
          return `${'{"a":'.repeat(depth)}{"__proto__":{"x":1}}${'}'.repeat(depth)}`;
        default:
          return `{"name":${'['.repeat(depth)}{"constructor":{"prototype":1}}${']'.repeat(depth)}}`;
      }
    }),
);

/** Text that is not JSON (checked at generation: JSON.parse rejects it, with or without a BOM). */
export const invalidJsonText = fc
  .oneof(
    fc.constantFrom(
      '{',
      '}',
      '{"a":}',
      '{"a" 1}',
      "{'a':1}",
      '{a:1}',
      '{"a":1,}',
      '[1,]',
      '{"a":1}}',
      '{"a":1}{"b":2}',
      'NaN',
      'undefined',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":01}',
      '{"a":"\\x41"}',
      '{"a":"\u0001"}',
      '{"a":"\\ud800"',
      '\u0000',
      '--',
      '{"api_key":"ghk_',
      '<xml/>',
      'name=a&roles=',
      '/* */ {}',
      '{"a":1} // c',
    ),
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.jsonValue({ maxDepth: 3 }).chain((v) => {
      const text = JSON.stringify(v);
      return fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n));
    }),
  )
  .filter((t) => {
    for (const candidate of [t, t.replace(/^\uFEFF/, '')]) {
      try {
        JSON.parse(candidate);
        return false;
      } catch {
        // not JSON: keep
      }
    }
    return t.trim().length > 0;
  });

/** Content types that are never JSON. */
export const NON_JSON_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----fuzz',
  'multipart/form-data',
  'application/xml',
  'text/html',
  'application/octet-stream',
  'text/json',
  'application/jsonx',
  'image/png',
];

/** Content types that are JSON, maybe oddly written. */
export const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; boundary=x',
  'application/json ; x=y',
];

export const ODD_CONTENT_TYPES = [
  '',
  ' ',
  ';',
  ';;;',
  '*/*',
  'application/*',
  'application/problem+json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'json',
  'application',
  'application/',
  '/json',
  'application/json/extra',
];

// ---------------------------------------------------------------------------------------------
// Schema-shaped values, from the JSON schemas of the OpenAPI document

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** Every property name and every enum string used anywhere in a schema. */
export function schemaVocabulary(schema: JsonSchema | undefined): { keys: string[]; words: string[] } {
  const keys = new Set<string>();
  const words = new Set<string>();
  const walk = (s: JsonSchema | undefined, depth: number) => {
    if (!s || typeof s !== 'object' || depth > 12) return;
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      keys.add(k);
      walk(v, depth + 1);
    }
    for (const v of s.enum ?? []) if (typeof v === 'string') words.add(v);
    for (const sub of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...Object.values(s.patternProperties ?? {})])
      walk(sub, depth + 1);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, depth + 1);
    walk(s.items, depth + 1);
  };
  walk(schema, 0);
  return { keys: [...keys], words: [...words] };
}

const lengthOk = (s: JsonSchema) => (v: string) =>
  v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY);

function stringFor(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === 'date-time') {
    return fc
      .date({ noInvalidDate: true, min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z') })
      .map((d) => d.toISOString());
  }
  if (s.pattern) {
    let re: RegExp;
    try {
      re = new RegExp(s.pattern);
    } catch {
      return fc.string({ maxLength: 20 });
    }
    const max = Math.min(s.maxLength ?? 40, 40);
    return fc
      .stringMatching(re, { size: 'small' })
      .filter(lengthOk({ ...s, maxLength: Math.max(max, s.minLength ?? 0) }));
  }
  const min = s.minLength ?? 0;
  const max = Math.max(min, Math.min(s.maxLength ?? 30, 30));
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: max }) },
    { weight: 1, arbitrary: fc.constant('a'.repeat(s.maxLength ?? 64)) },
  );
}

export type Hints = () => readonly string[];
const noHints: Hints = () => [];

/**
 * Values that (mostly) satisfy a JSON schema, so that requests get past validation into the services.
 * `hints` returns known names and ids (built-in roles, things created so far): a string that fits the
 * schema is sometimes taken from them, so that references resolve.
 */
export function valueFor(schema: JsonSchema | undefined, hints: Hints = noHints, depth = 0): fc.Arbitrary<unknown> {
  const s = schema ?? {};
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives && alternatives.length > 0)
    return fc.oneof(...alternatives.map((a) => valueFor(a, hints, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      const re = s.pattern ? new RegExp(s.pattern) : undefined;
      const fits = (h: string) => lengthOk(s)(h) && (!re || re.test(h));
      const known = fc.tuple(stringFor(s), fc.nat()).map(([fallback, n]) => {
        const fit = hints().filter(fits);
        return fit.length ? (fit[n % fit.length] as string) : fallback;
      });
      return fc.oneof({ weight: 2, arbitrary: stringFor(s) }, { weight: 1, arbitrary: known });
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(s.items, hints, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)),
      });
    case 'object': {
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = valueFor(v, hints, depth + 1);
      const fixed = fc.record(model, { requiredKeys: [...required].filter((k) => k in props) });
      const extraSchemas: Array<[fc.Arbitrary<string>, JsonSchema]> = [];
      for (const [pattern, v] of Object.entries(s.patternProperties ?? {})) {
        extraSchemas.push([stringFor({ type: 'string', pattern, maxLength: 32 }), v]);
      }
      if (typeof s.additionalProperties === 'object') {
        extraSchemas.push([fc.stringMatching(/^[a-z*][a-z0-9_*]{0,15}$/), s.additionalProperties]);
      }
      if (extraSchemas.length === 0) return fixed;
      const [keyArb, valueSchema] = extraSchemas[0] as [fc.Arbitrary<string>, JsonSchema];
      const extra = fc.dictionary(keyArb, valueFor(valueSchema, hints, depth + 1), {
        maxKeys: Math.min(s.maxProperties ?? 4, 4),
        noNullPrototype: true,
      });
      return fc.tuple(fixed, extra).map(([a, b]) => ({ ...b, ...a }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A schema-shaped body, then perhaps broken in one place: a key added, dropped, or given a wrong value. */
export function schemaBodyText(schema: JsonSchema | undefined, hints: Hints = noHints): fc.Arbitrary<string> {
  const vocabulary = schemaVocabulary(schema);
  const anyKey = fc.oneof(
    ...(vocabulary.keys.length ? [fc.constantFrom(...vocabulary.keys)] : []),
    fc.constantFrom(...POLLUTION_KEYS),
    fc.string({ maxLength: 12 }),
  );
  const wrongValue = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    hugeString,
    idLike,
    secretLike,
    fc.constantFrom(null, true, 0, -1, 1.5, 1e308, -1e308, '', ' ', '*', 'admin', [], {}, ['*'], [''], { '*': '*' }),
    ...(vocabulary.words.length ? [fc.constantFrom(...vocabulary.words)] : []),
  );
  return fc
    .tuple(
      valueFor(schema, hints),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant({ op: 'none' as const }) },
        { weight: 2, arbitrary: fc.record({ op: fc.constant('set' as const), key: anyKey, value: wrongValue }) },
        { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), index: fc.nat() }) },
      ),
    )
    .map(([value, mutation]) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return JSON.stringify(value) ?? 'null';
      const pairs: Array<[string, unknown]> = Object.entries(value);
      if (mutation.op === 'set') {
        const at = pairs.findIndex(([k]) => k === mutation.key);
        if (at >= 0) pairs[at] = [mutation.key, mutation.value];
        else pairs.push([mutation.key, mutation.value]);
      } else if (mutation.op === 'drop' && pairs.length > 0) {
        pairs.splice(mutation.index % pairs.length, 1);
      }
      return objectText(pairs);
    });
}

// ---------------------------------------------------------------------------------------------
// Malformed HTTP/1.1, below what a client library would send: for the server's HTTP parser

/** Pieces of one raw request; `@token` in it stands for the admin token. */
export interface RawHttpRequest {
  method: string;
  target: string;
  version: string;
  /** Undefined: no Host header at all. */
  host: string | undefined;
  lines: string[];
  /** The framing headers and the body, ready to append after the other header lines. */
  framing: { headers: string[]; body: string };
}

const RAW_BYTES = [' ', '\t', '\x00', '\x01', '\x7f', '\xe9', '\xff', '"', '<', '>', '\\', '^', '`', '{', '|', '}'];

const rawTarget = (paths: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), fc.nat(), fc.constantFrom(...RAW_BYTES))
        .map(([p, at, c]) => p.slice(0, at % (p.length + 1)) + c + p.slice(at % (p.length + 1))),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '*',
        '',
        'v1/users',
        '//v1//users',
        'http://gatehouse/v1/users',
        'https://evil.example:99999/v1/roles',
        'http://[::1/v1/users',
        '/v1/users?a=\xe9',
        '/%',
      ),
    },
  );

const HEADER_LINES = [
  'Foo bar',
  ' folded-continuation',
  '\tfolded',
  'X: a\x00b',
  'X: \x7f',
  'X Y: z',
  ': empty-name',
  'X-\xe9: latin1-name',
  'Accept: */*',
  'Connection: close',
  'Connection: keep-alive, Upgrade',
  'Upgrade: websocket',
  'Upgrade: h2c',
  'Expect: 100-continue',
  'Expect: teapot',
  'X-Forwarded-For: 1.2.3.4',
  'Content-Encoding: gzip',
  `X-Long: ${'v'.repeat(4000)}`,
];

const json = '{"name":"raw-probe"}';
type Framing = RawHttpRequest['framing'];
const frame = (headers: string[], body: string): Framing => ({ headers, body });
const JSON_TYPE = 'Content-Type: application/json';
const chunk = (size: string, rest = '\r\n0\r\n\r\n') => `${size}\r\n${json}${rest}`;
const framing: fc.Arbitrary<Framing> = fc.oneof(
  fc.constant(frame([], '')),
  fc.constant(frame([JSON_TYPE, `Content-Length: ${json.length}`], json)),
  fc
    .constantFrom('-1', 'abc', '1e3', ' 5', '5, 5', '0x10', '99999999999999999999', '', '20, 21')
    .map((n) => frame([JSON_TYPE, `Content-Length: ${n}`], json)),
  fc.constant(frame([JSON_TYPE, 'Content-Length: 20', 'Content-Length: 21'], json)),
  // Declared longer than sent (the connection is half-closed after it) or shorter (the rest pipelines).
  fc.integer({ min: 0, max: 200 }).map((n) => frame([JSON_TYPE, `Content-Length: ${n}`], json)),
  fc.constant(frame([JSON_TYPE, 'Transfer-Encoding: chunked'], chunk(json.length.toString(16)))),
  fc
    .constantFrom('zz', '-1', 'ffffffffffffffffff', '5;ext=1', '', ' 14')
    .map((size) => frame([JSON_TYPE, 'Transfer-Encoding: chunked'], chunk(size))),
  fc.constant(frame([JSON_TYPE, 'Transfer-Encoding: chunked'], chunk(json.length.toString(16), ''))),
  fc
    .constantFrom('chunked, gzip', 'gzip, chunked', 'xchunked', 'chunked\x00', 'identity')
    .map((te) =>
      frame([JSON_TYPE, `Transfer-Encoding: ${te}`, `Content-Length: ${json.length}`], chunk(json.length.toString(16))),
    ),
);

export const rawHttpRequest = (paths: readonly string[]): fc.Arbitrary<RawHttpRequest> =>
  fc.record({
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
      { weight: 1, arbitrary: fc.constantFrom('get', 'G@T', 'GE T', '', 'BREW', 'PRI', 'GET\t', '\x00GET', 'POSTX') },
    ),
    target: rawTarget(paths),
    version: fc.oneof(
      { weight: 5, arbitrary: fc.constant('HTTP/1.1') },
      {
        weight: 2,
        arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/9.9', 'http/1.1', '', 'HTTP/1.1 x'),
      },
    ),
    host: fc.oneof(
      { weight: 6, arbitrary: fc.constant('Host: gatehouse') },
      { weight: 1, arbitrary: fc.constantFrom('Host:', 'Host: a b', 'Host: x\r\nHost: y', `Host: ${'h'.repeat(300)}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    lines: fc
      .tuple(
        fc.constantFrom([], ['Authorization: Bearer @token'], ['Authorization: Basic Og=='], ['Authorization:']),
        fc.array(fc.constantFrom(...HEADER_LINES), { maxLength: 3 }),
      )
      .map(([auth, extra]) => [...auth, ...extra]),
    framing,
  });

export function rawHttpText(r: RawHttpRequest, token: string): string {
  const head = [
    `${r.method} ${r.target} ${r.version}`.replace(/ $/, ''),
    ...(r.host === undefined ? [] : [r.host]),
    ...r.lines,
    ...r.framing.headers,
  ];
  return `${head.join('\r\n')}\r\n\r\n${r.framing.body}`.replace(/@token/g, token);
}
