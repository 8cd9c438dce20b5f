// Versioned schema migrations for the SQLite stores: each entry runs once, in order, in a transaction.
import type Database from 'better-sqlite3';

export function runMigrations(db: Database.Database, name: string, migrations: string[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const applied = row.v ?? 0;
  if (applied > migrations.length) {
    throw new Error(
      `the ${name} database is at schema version ${applied}, newer than this Gatehouse (${migrations.length}); upgrade Gatehouse`,
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  migrations.slice(applied).forEach((sql, i) => {
    db.transaction(() => {
      db.exec(sql);
      record.run(applied + i + 1, new Date().toISOString());
    })();
  });
}
