// Chooses the recordings object store from recordings_url (GATEHOUSE_RECORDINGS_URL):
// unset → `<data dir>/recordings`; `file://DIR` (absolute, or relative to the working directory);
// `s3://bucket/prefix?endpoint=…&region=…&path_style=true`. Anything else is a ConfigError naming the key.
import { resolve } from 'node:path';
import { ConfigError } from '../config/load.js';
import { createFsStore } from './fs-store.js';
import type { ObjectStore } from './object-store.js';
import { createS3Store, parseS3Url } from './s3-store.js';

const KEY = 'config key recordings_url (or GATEHOUSE_RECORDINGS_URL)';

export const defaultRecordingsDir = (dataDir: string): string => resolve(dataDir, 'recordings');

export function openObjectStore(url: string | undefined, dataDir: string): ObjectStore {
  if (url === undefined || url === '') return createFsStore(defaultRecordingsDir(dataDir));
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'file') {
    // file:///abs/dir, or file://./rel/dir for a path relative to the working directory.
    const path = decodeURIComponent(url.slice('file://'.length));
    if (!url.startsWith('file://') || path === '') throw new ConfigError(`${KEY}: use file:///absolute/dir`);
    return createFsStore(resolve(path));
  }
  if (scheme === 's3') {
    try {
      return createS3Store(parseS3Url(url));
    } catch (error) {
      throw new ConfigError(`${KEY}: ${(error as Error).message}`);
    }
  }
  throw new ConfigError(
    `${KEY}: unsupported store "${scheme ?? url.slice(0, 20)}"; use file:///dir or ` +
      's3://bucket/prefix?endpoint=http://host:port&region=…&path_style=true',
  );
}
