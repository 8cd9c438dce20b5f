import { openSqliteAuditStore } from './src/audit/sqlite.js';
import { performance } from 'node:perf_hooks';
const types = ['auth.token.issued','auth.token.issued','auth.token.issued','auth.token.refreshed','auth.login.failed','session.start','session.end','access.allowed','access.denied','recording.uploaded','user.created'];
const H = Array.from({length:100},(_,i)=>1/(i+1)); const tot = H.reduce((a,b)=>a+b); 
const cdf: number[] = []; let acc=0; for (const h of H) { acc += h/tot; cdf.push(acc); }
const pick = () => { const r = Math.random(); let i = 0; while (cdf[i]! < r) i++; return i; };
const store = openSqliteAuditStore({ path: '/tmp/probe-audit.db', synchronous: 'NORMAL' });
const t0 = performance.now();
let n = 0;
for (let b = 0; b < 100; b++) {
  const batch = Array.from({ length: 10000 }, () => { const a = pick(); const t = types[Math.floor(Math.random()*types.length)]!; return { id: 'e' + n++, type: t, code: 'X', time: new Date(1.7e12 + n * 1000).toISOString(), actor: { kind: 'user' as const, id: `user_${String(a).padStart(13,'0')}` }, success: true, remote_addr: '10.0.0.1', request_id: 'req_' + n, ...(t.startsWith('session') ? { session_id: 'sess_' + Math.floor(Math.random()*50000) } : {}), ...(!t.startsWith('auth') ? { target: { kind: 'server', id: 'srv_' + Math.floor(Math.random()*500) } } : {}) }; });
  await store.append(batch);
}
console.log('loaded in', ((performance.now() - t0)/1000).toFixed(1));
await store.close();
