// Object store on a local directory (`file://…`, the embedded default). An object is the file
// `<root>/<key>`; its metadata sits in `<root>/.meta/<key>.json`. A put writes a temp file under
// `<root>/.tmp/`, fsyncs it, renames the metadata then the data into place and fsyncs the directories,
// so a crash leaves either the old object or the new one, never a torn file.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { privateDir } from '../lib/private-files.js';
import { checkKey, type ObjectInfo, type ObjectStore, type PutOptions } from './object-store.js';

interface MetaFile {
  metadata: Record<string, string>;
  content_type?: string;
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

async function fsyncPath(path: string, flags = 'r'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function createFsStore(rootPath: string): ObjectStore {
  const root = resolve(rootPath);
  const tmpDir = join(root, '.tmp');
  const dataPath = (key: string) => join(root, checkKey(key));
  const metaPath = (key: string) => join(root, '.meta', `${checkKey(key)}.json`);
  // Recordings hold whatever crossed a terminal: the tree is 0700 however the data dir is set, and
  // a root an older release left 0755 is tightened by the first put.
  let rootReady: Promise<void> | undefined;
  const privateMkdir = (dir: string) => mkdir(dir, { recursive: true, mode: 0o700 });

  async function readMeta(key: string): Promise<MetaFile> {
    try {
      return JSON.parse(await readFile(metaPath(key), 'utf8')) as MetaFile;
    } catch {
      return { metadata: {} };
    }
  }

  async function* walk(dir: string): AsyncGenerator<string> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* walk(path);
      else if (entry.isFile()) yield relative(root, path).split(sep).join('/');
    }
  }

  return {
    description: `file://${root}`,

    async put(key: string, body: () => Readable, opts: PutOptions): Promise<void> {
      const target = dataPath(key);
      const metaTarget = metaPath(key);
      rootReady ??= privateDir(root).catch((error) => {
        rootReady = undefined;
        throw error;
      });
      await rootReady;
      await privateMkdir(tmpDir);
      const tmp = join(tmpDir, randomBytes(12).toString('hex'));
      const md5 = createHash('md5');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          md5.update(chunk);
          done(null, chunk);
        },
      });
      const out = createWriteStream(tmp, { mode: 0o600, flush: true });
      try {
        const signal = opts.signal ? { signal: opts.signal } : {};
        await pipeline(body(), count, out, signal);
        if (size !== opts.size) throw new Error(`put ${key}: got ${size} bytes, expected ${opts.size}`);
        if (opts.md5 && md5.digest('base64') !== opts.md5) throw new Error(`put ${key}: MD5 mismatch`);
        const meta: MetaFile = { metadata: opts.metadata ?? {} };
        if (opts.contentType) meta.content_type = opts.contentType;
        const metaTmp = `${tmp}.meta`;
        const handle = await open(metaTmp, 'w', 0o600);
        try {
          await handle.writeFile(JSON.stringify(meta));
          await handle.sync();
        } finally {
          await handle.close();
        }
        await privateMkdir(dirname(target));
        await privateMkdir(dirname(metaTarget));
        // Metadata first: a data file present implies metadata of this put (or a later one).
        await rename(metaTmp, metaTarget);
        await rename(tmp, target);
        await fsyncPath(dirname(metaTarget));
        await fsyncPath(dirname(target));
      } catch (error) {
        // A source that fails at once can beat the file's open(): wait until the stream has closed
        // its file (created or not), or the temp file would appear after the unlink and stay.
        if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
        await unlink(tmp).catch(() => undefined);
        await unlink(`${tmp}.meta`).catch(() => undefined);
        throw error;
      }
    },

    async get(key: string): Promise<Readable | undefined> {
      try {
        const handle = await open(dataPath(key), 'r');
        return handle.createReadStream();
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async head(key: string): Promise<ObjectInfo | undefined> {
      let info: import('node:fs').Stats;
      try {
        info = await stat(dataPath(key));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      if (!info.isFile()) return undefined;
      const meta = await readMeta(key);
      return { key, size: info.size, metadata: meta.metadata, lastModified: info.mtime };
    },

    async *list(prefix = '') {
      // Walk only the directory the prefix points into.
      const slash = prefix.lastIndexOf('/');
      const start = slash < 0 ? root : join(root, checkKey(prefix.slice(0, slash)));
      for await (const key of walk(start)) {
        if (!key.startsWith(prefix)) continue;
        const info = await stat(join(root, key)).catch(() => undefined);
        if (info) yield { key, size: info.size, lastModified: info.mtime };
      }
    },

    async delete(key: string): Promise<void> {
      for (const path of [dataPath(key), metaPath(key)]) {
        await unlink(path).catch((error) => {
          if (!isMissing(error)) throw error;
        });
      }
    },

    async close(): Promise<void> {},
  };
}
