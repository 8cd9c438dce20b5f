// Search across recordings' text: each recording's plain-text rendering (what the server printed,
// without escape sequences; input only when the role records it) in an SQLite FTS5 table with the
// trigram tokenizer, so any substring of 3+ characters is found through the index, in any case.
// Filled when a recording closes in the spool (and for recordings recovered after a crash), before
// upload. The index is embedded, in `<data dir>/recordings-text.db` (0600), one per instance, like
// the spool; recordings made before it existed are not in it. At most MAX_INDEXED_CHARS per session.
import { closeSync, createReadStream, openSync } from 'node:fs';
import type { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { plainTextFromCast } from './asciicast.js';

export const MAX_INDEXED_CHARS = 4 * 1024 * 1024;
/** Sessions a search names at most; the sessions list pages through them. */
export const MAX_SEARCH_HITS = 10_000;

export type RecordingTextIndex = ReturnType<typeof openRecordingTextIndex>;

async function renderText(source: AsyncIterable<string | Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of plainTextFromCast(source)) {
    text += chunk;
    if (text.length >= MAX_INDEXED_CHARS) return text.slice(0, MAX_INDEXED_CHARS);
  }
  return text;
}

/** `LIKE` pattern for a literal substring (the index serves LIKE with the trigram tokenizer). */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function openRecordingTextIndex(path: string) {
  closeSync(openSync(path, 'a', 0o600)); // recorded output may hold secrets: owner only
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(
    "CREATE VIRTUAL TABLE IF NOT EXISTS recording_text USING fts5(session_id UNINDEXED, text, tokenize = 'trigram')",
  );
  const remove = db.prepare('DELETE FROM recording_text WHERE session_id = ?');
  const insert = db.prepare('INSERT INTO recording_text (session_id, text) VALUES (?, ?)');
  const find = db.prepare<[string, number], { session_id: string }>(
    "SELECT session_id FROM recording_text WHERE text LIKE ? ESCAPE '\\' LIMIT ?",
  );
  const replace = db.transaction((sessionId: string, text: string) => {
    remove.run(sessionId);
    insert.run(sessionId, text);
  });
  let open = true;

  return {
    /**
     * Indexes a closed recording: from its spool file, or, if the uploader already moved it to the
     * object store, from there (`fromStore`).
     */
    async add(sessionId: string, castPath: string, fromStore: () => Promise<Readable | undefined>): Promise<void> {
      let source: AsyncIterable<string | Buffer> | undefined = createReadStream(castPath);
      let text: string;
      try {
        text = await renderText(source);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        source = await fromStore();
        if (!source) return;
        text = await renderText(source);
      }
      if (open) replace(sessionId, text);
    },
    /** Ids of the sessions whose recorded text contains `text` (any case). */
    search(text: string): Set<string> {
      return new Set(find.all(likePattern(text), MAX_SEARCH_HITS).map((r) => r.session_id));
    },
    close(): void {
      open = false;
      db.close();
    },
  };
}
