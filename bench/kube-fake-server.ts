// The fake Kubernetes API server (test/helpers/fake-kube-apiserver.ts) in a process of its own for
// npm run bench:kube, so that it, Gatehouse and the load generator do not share one event loop.
// Prints `BENCH_READY {url, caPem, token}` once it listens; ends with its parent (child-protocol.ts).
import { startFakeKube } from '../test/helpers/fake-kube-apiserver.js';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';

const fake = await startFakeKube({ rbac: { bench: ['default'] } });
process.stdout.write(`${READY_PREFIX}${JSON.stringify({ url: fake.url, caPem: fake.caPem, token: fake.token })}\n`);
exitOnParentGone(() => fake.close());
