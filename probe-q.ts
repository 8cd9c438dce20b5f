import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
const db = new Database('/tmp/probe-audit.db');
const mk = (sql: string) => { const t0 = performance.now(); db.exec(sql); console.log(sql.slice(0, 60), ((performance.now() - t0)/1000).toFixed(1), 's'); };
mk('DROP INDEX IF EXISTS events_actor; CREATE INDEX events_actor ON events(actor_id, seq, type)');
mk('CREATE INDEX IF NOT EXISTS events_failed ON events(seq) WHERE success = 0');
const run = (label: string, sql: string, params: unknown[]) => {
  const st = db.prepare(sql);
  console.log(label, (db.prepare('EXPLAIN QUERY PLAN ' + sql).all(...params) as any[]).map(r => r.detail).join('; '));
  const t: number[] = [];
  for (let i = 0; i < 20; i++) { const t0 = performance.now(); st.all(...params); t.push(performance.now() - t0); }
  t.sort((x, y) => x - y); console.log('   p50', t[10]!.toFixed(2), 'max', t[19]!.toFixed(2));
};
const a = 'user_0000000000000';
run('bench page', 'SELECT seq, body FROM events WHERE (type >= ? AND type < ?) AND actor_id = ? ORDER BY seq DESC LIMIT 51', ['auth.', 'auth/', a]);
run('bench count', 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE (type >= ? AND type < ?) AND actor_id = ? LIMIT 10000)', ['auth.', 'auth/', a]);
const a9 = 'user_0000000000009';
run('bench count a9', 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE (type >= ? AND type < ?) AND actor_id = ? LIMIT 10000)', ['auth.', 'auth/', a9]);
const types = (db.prepare("SELECT DISTINCT type FROM events WHERE type >= 'auth.' AND type < 'auth/'").all() as any[]).map(r => r.type);
const arms = types.map(() => 'SELECT seq, body FROM events WHERE type = ?').join(' UNION ALL ');
run('auth.* merge', `${arms} ORDER BY seq DESC LIMIT 51`, types);
run('auth.* merge+cursor', `${types.map(() => 'SELECT seq, body FROM events WHERE type = ? AND seq < ?').join(' UNION ALL ')} ORDER BY seq DESC LIMIT 51`, types.flatMap(t => [t, 500000]));
run('time range PK', 'SELECT seq, body FROM events WHERE +time_ms >= ? AND +time_ms <= ? ORDER BY seq DESC LIMIT 51', [1.7e12, 1.7e12 + 5e8]);
run('time range PK old', 'SELECT seq, body FROM events WHERE +time_ms >= ? AND +time_ms <= ? ORDER BY seq DESC LIMIT 51', [1.7e12, 1.7e12 + 5e7]);
run('time cap count', 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE time_ms >= ? AND time_ms <= ? LIMIT 5000)', [1.7e12, 1.7e12 + 5e8]);
run('failed', 'SELECT seq, body FROM events WHERE success = 0 ORDER BY seq DESC LIMIT 51', []);
run('seq scan all', 'SELECT count(*) FROM events WHERE +time_ms < 0', []);
