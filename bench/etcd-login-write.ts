// A login's write on the etcd backend, in isolation (issue 36, cluster login CPU): the API key must
// be present, two token rows are put with their expiry. Two ways in the same run, rounds interleaved:
//   one txn      the presence compared in the transaction (the value sorts above the live mark)
//   read first   the key read before the transaction (what every conditional write did before;
//                forced here with a clock outside the 13-digit range, which the backend reads first for)
// CPU per write of this process (the etcd client) and of the three etcd members, and the ratio.
// Usage: npx tsx bench/etcd-login-write.ts (BENCH_WRITES per round, default 2,000; BENCH_ROUNDS 3).
import { execFileSync } from 'node:child_process';
import { openEtcdBackend, parseEtcdUrl } from '../src/backend/etcd.js';
import { startEtcd } from '../test/helpers/etcd.js';
import { intEnv, processCpuSeconds, RoundRatios } from './stats.js';

const WRITES = intEnv('BENCH_WRITES', 2000, 100);
const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const etcd = await startEtcd(3);
const members = execFileSync('pgrep', ['-f', 'gatehouse-etcd-'], { encoding: 'utf8' }).trim().split('\n').map(Number);
const { hosts } = parseEtcdUrl(etcd.url());
// The second clock is far in the past: the backend cannot compare expiry in the transaction then.
const ways = {
  'one txn': openEtcdBackend({ hosts, prefix: '/bench-a/', sweepIntervalMs: 3_600_000 }),
  'read first': openEtcdBackend({
    hosts,
    prefix: '/bench-b/',
    sweepIntervalMs: 3_600_000,
    clock: () => Date.now() - 1.7e12,
  }),
};
const value = JSON.stringify({
  kind: 'access',
  principal: { kind: 'user', id: 'user_0123456789abcdefghij' },
  family: 'abcdefghijklmnop',
  issued_at: Date.now(),
  expires_at: Date.now() + 3_600_000,
  api_key_id: 'key_0123456789abcdefghij',
});
try {
  for (const backend of Object.values(ways)) await backend.put('apikeys/k', '{"id":"k"}');
  const cpuRatio = new RoundRatios('CPU per login write (client + etcd), one txn / read first', '< 1');
  let n = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const perWrite: Record<string, number> = {};
    for (const [name, backend] of Object.entries(ways)) {
      const etcd0 = members.reduce((s, pid) => s + processCpuSeconds(pid), 0);
      const own0 = process.cpuUsage();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next++ < WRITES) {
            const at = Date.now();
            await backend.atomicWrite(
              [{ key: 'apikeys/k', is: 'present' }],
              [0, 1].map(() => ({ type: 'put' as const, key: `tokens/${n++}`, value, expiresAt: at + 7_200_000 })),
            );
          }
        }),
      );
      const wall = performance.now() - started;
      const own = process.cpuUsage(own0);
      const etcdUs = (members.reduce((s, pid) => s + processCpuSeconds(pid), 0) - etcd0) * 1e6;
      const ownUs = own.user + own.system;
      perWrite[name] = (ownUs + etcdUs) / WRITES;
      console.log(
        `round ${round} ${name.padEnd(10)} ${Math.round((WRITES / wall) * 1000)} writes/s, CPU per write: client ${(ownUs / WRITES).toFixed(0)} µs, etcd ${(etcdUs / WRITES).toFixed(0)} µs`,
      );
    }
    console.log(cpuRatio.add(perWrite['one txn'] as number, perWrite['read first'] as number));
  }
  console.log(cpuRatio.summary());
} finally {
  for (const backend of Object.values(ways)) await backend.close();
  await etcd.close();
}
