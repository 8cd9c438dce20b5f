// The per-agent token bucket, on a clock the test moves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgentLimits } from './rate-limits.js';

test('a bucket holds a minute of calls, refills continuously, and reports a breach once a minute', () => {
  let now = 1_000_000;
  const limits = createAgentLimits(() => now, { requestsPerMinute: 60, credentialsPerMinute: 6 });
  for (let i = 0; i < 60; i++) assert.equal(limits.take('requests', 'a', 60), undefined, `call ${i}`);
  const first = limits.take('requests', 'a', 60);
  assert.deepEqual(first, { limit: 60, retryAfter: 1, report: true, refused: 1 });
  const second = limits.take('requests', 'a', 60);
  assert.equal(second?.report, false, 'the second breach in a minute is not reported again');
  assert.equal(limits.take('requests', 'b', 60), undefined, 'another agent has its own bucket');
  assert.equal(limits.take('credentials', 'a', 6), undefined, 'and another kind its own');
  now += 1000; // one call's worth
  assert.equal(limits.take('requests', 'a', 60), undefined);
  assert.ok(limits.take('requests', 'a', 60));
  now += 60_000;
  const later = limits.take('requests', 'a', 60);
  assert.equal(later, undefined, 'full again after a minute');
  for (let i = 0; i < 59; i++) limits.take('requests', 'a', 60);
  const reported = limits.take('requests', 'a', 60);
  assert.equal(reported?.report, true, 'a minute later a breach is reported again');
  assert.equal(reported?.refused, 3, 'counting the refusals since the last report, this one included');
  // A changed limit takes effect at once.
  assert.equal(limits.take('requests', 'a', 120), undefined);
  limits.forget('a');
  assert.equal(limits.take('requests', 'a', 1), undefined);
  assert.equal(limits.take('requests', 'a', 1)?.retryAfter, 60);
});
