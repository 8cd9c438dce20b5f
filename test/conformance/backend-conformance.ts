// The Backend contract (src/backend/types.ts) as a reusable node:test suite. Every implementation's test
// file calls runBackendConformance with an opener that returns a fresh, empty backend per test:
//
//   runBackendConformance('sqlite', async (opts) => { ...; return { backend, reopen, cleanup } }, { inProcessWatch: true });
//
// The suite asks for a short sweep interval only where it tests the sweeper; elsewhere it asks for a
// long one, so expiry is seen to be enforced on read and not merely by the sweeper.
import { describe, test } from 'node:test';
import { registerAtomicTests, registerRangeTests, registerSingleKeyTests } from './backend-kv.js';
import { registerLifecycleTests } from './backend-lifecycle.js';
import { registerExpiryTests, registerWatchTests } from './backend-watch.js';
import type { BackendCase, BackendConformanceOptions, BackendOpener } from './helpers.js';

export type {
  BackendConformanceOptions,
  BackendFixture,
  BackendOpener,
  BackendOpenOptions,
} from './helpers.js';

export function runBackendConformance(
  name: string,
  open: BackendOpener,
  options: BackendConformanceOptions = {},
): void {
  const it: BackendCase = (title, body, openOpts = {}) =>
    test(title, async (t) => {
      const fixture = await open({ sweepIntervalMs: 60_000, ...openOpts });
      try {
        await body(fixture, t);
      } finally {
        await fixture.cleanup();
      }
    });

  describe(`${name} backend conformance`, () => {
    describe('single-key operations', () => registerSingleKeyTests(it));
    describe('getRange and deleteRange', () => registerRangeTests(it));
    describe('atomicWrite', () => registerAtomicTests(it));
    describe('watch', () => registerWatchTests(it, options));
    describe('expiry', () => registerExpiryTests(it));
    registerLifecycleTests(it);
  });
}
