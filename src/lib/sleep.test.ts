import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { sleep } from './sleep.js';

test('pauses that end leave no listener on the signal; an abort ends a pause at once', async () => {
  const controller = new AbortController();
  for (let i = 0; i < 20; i++) await sleep(1, controller.signal);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  const started = Date.now();
  const long = sleep(60_000, controller.signal);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
  controller.abort();
  await long;
  assert.ok(Date.now() - started < 1000);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});
