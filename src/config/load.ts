// Loads the configuration: schema defaults, then the YAML file, then GATEHOUSE_* variables.
// Anything invalid stops the process with a message naming the key.
import { readFileSync } from 'node:fs';
import { type TSchema, TypeGuard } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from '../lib/duration.js';
import { type Config, ConfigSchema } from './schema.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Leaf = { path: string[]; schema: TSchema };

function leaves(schema: TSchema, path: string[] = []): Leaf[] {
  if (TypeGuard.IsObject(schema)) {
    return Object.entries(schema.properties).flatMap(([k, s]) => leaves(s as TSchema, [...path, k]));
  }
  return [{ path, schema }];
}

function envValue(raw: string, schema: TSchema): unknown {
  if (TypeGuard.IsArray(schema))
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  // 1 and 0 as well, as shells and container environments often write them.
  if (TypeGuard.IsBoolean(schema))
    return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  if (TypeGuard.IsInteger(schema) || TypeGuard.IsNumber(schema)) return raw.trim() === '' ? raw : Number(raw);
  return raw;
}

export const envName = (path: string[]): string => `GATEHOUSE_${path.join('_').toUpperCase()}`;

function getPath(source: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = source;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

// GATEHOUSE_* variables read outside the config schema (by the bin, tests and benchmarks).
const NOT_SETTINGS = ['GATEHOUSE_ALLOW_UNSUPPORTED_NODE', 'GATEHOUSE_TEST_', 'GATEHOUSE_BENCH_'];
/** Shorter names for settings operators type by hand (the long one works too). */
const ENV_ALIASES: Record<string, string[]> = { GATEHOUSE_JOIN_TOKEN: ['cluster', 'join_token'] };

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] as number;
}

/**
 * One warning per GATEHOUSE_* variable that names no setting. A misspelled variable would
 * otherwise be ignored in silence and Gatehouse would start with the default it meant to change.
 */
export function unknownVariables(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = [...leaves(ConfigSchema).map((leaf) => envName(leaf.path)), ...Object.keys(ENV_ALIASES)];
  return Object.keys(env)
    .filter((name) => name.startsWith('GATEHOUSE_') && !known.includes(name))
    .filter((name) => !NOT_SETTINGS.some((other) => name === other || (other.endsWith('_') && name.startsWith(other))))
    .sort()
    .map((name) => {
      const [nearest, distance] = known
        .map((k) => [k, editDistance(name, k)] as const)
        .reduce((best, next) => (next[1] < best[1] ? next : best));
      const hint = distance <= Math.max(3, Math.floor(name.length / 4)) ? `; did you mean ${nearest}?` : '';
      return `${name} is not a Gatehouse setting and is ignored${hint}`;
    });
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

export function loadConfig(opts: {
  file?: string;
  env?: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
}): Config {
  let raw: Record<string, unknown> = {};
  if (opts.file) {
    let text: string;
    try {
      text = readFileSync(opts.file, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read the config file ${opts.file}: ${(e as Error).message}`);
    }
    const parsed = parseYaml(text) as unknown;
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== 'object' || Array.isArray(parsed))
        throw new ConfigError(`${opts.file}: must be a YAML mapping`);
      raw = parsed as Record<string, unknown>;
    }
  }
  // Lists may be written as in the environment, `roles: auth,proxy`, or as YAML sequences.
  for (const leaf of leaves(ConfigSchema)) {
    const value = getPath(raw, leaf.path);
    if (TypeGuard.IsArray(leaf.schema) && typeof value === 'string')
      setPath(raw, leaf.path, envValue(value, leaf.schema));
  }
  const env = opts.env ?? process.env;
  for (const leaf of leaves(ConfigSchema)) {
    const value = env[envName(leaf.path)];
    if (value !== undefined && value !== '') setPath(raw, leaf.path, envValue(value, leaf.schema));
  }
  for (const [name, path] of Object.entries(ENV_ALIASES)) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(raw, path, value);
  }
  for (const [k, v] of Object.entries(opts.overrides ?? {})) setPath(raw, k.split('.'), v);

  const config = Value.Default(ConfigSchema, Value.Clone(raw)) as Config;
  const first = [...Value.Errors(ConfigSchema, config)][0];
  if (first) {
    const key = first.path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
    const variable = first.path ? ` (or ${envName(first.path.replace(/^\//, '').split('/'))})` : '';
    throw new ConfigError(`config key ${key}${variable}: ${first.message}`);
  }
  for (const key of [
    'tokens.access_ttl',
    'tokens.refresh_ttl',
    'login_throttle.window',
    'http.request_timeout',
    'http.idle_timeout',
  ] as const) {
    const [section, name] = key.split('.') as [keyof Config, string];
    const text = (config[section] as Record<string, string>)[name] as string;
    const ms = parseDuration(text);
    if (ms === undefined || ms < 1000) throw new ConfigError(`config key ${key}: must be at least 1s`);
  }
  return Object.freeze(config);
}
