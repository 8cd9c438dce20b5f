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
  if (TypeGuard.IsBoolean(schema)) return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (TypeGuard.IsInteger(schema) || TypeGuard.IsNumber(schema)) return raw.trim() === '' ? raw : Number(raw);
  return raw;
}

export const envName = (path: string[]): string => `GATEHOUSE_${path.join('_').toUpperCase()}`;

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
  const env = opts.env ?? process.env;
  for (const leaf of leaves(ConfigSchema)) {
    const value = env[envName(leaf.path)];
    if (value !== undefined && value !== '') setPath(raw, leaf.path, envValue(value, leaf.schema));
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
