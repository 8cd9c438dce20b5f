// Shared pieces of the conformance suites: fixture shapes, error matchers, polling, and a watch recorder.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  type Backend,
  BackendError,
  type BackendFailure,
  type WatchEvent,
  type Watcher,
} from '../../src/backend/types.js';

/** What the suite may ask of an opener; implementations ignore what does not apply to them. */
export interface BackendOpenOptions {
  /** How often expired items are swept (and their delete events published). */
  sweepIntervalMs?: number;
}

export interface BackendFixture {
  /** A freshly opened backend over empty storage that no other test shares. */
  backend: Backend;
  /**
   * Opens a new Backend over the same storage. The suite closes the previous backend first.
   * Provide it for backends whose data outlives a client (files, servers); omit it otherwise and
   * the persistence tests are skipped.
   */
  reopen?: () => Promise<Backend>;
  /** Closes every backend this fixture opened (close is idempotent) and removes the storage. */
  cleanup(): Promise<void>;
}

export type BackendOpener = (opts?: BackendOpenOptions) => Promise<BackendFixture>;

export interface BackendConformanceOptions {
  /**
   * The backend serves watchers in-process and publishes a write's events before the write's promise
   * resolves (the SQLite backend). Networked backends deliver events asynchronously; for them the suite
   * only checks that every acknowledged write's event arrives, which is what the cache's waitFor needs.
   */
  inProcessWatch?: boolean;
}

export function tempDir(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `gatehouse-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function rejectsWith(promise: Promise<unknown>, reason: BackendFailure, key: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof BackendError, `expected a BackendError, got ${String(error)}`);
    assert.equal(error.reason, reason);
    assert.equal(error.key, key);
    return true;
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until check() is truthy; fails with message after timeoutMs. */
export async function eventually(check: () => boolean, message: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs}ms: ${message}`);
    await sleep(5);
  }
}

export const eventKey = (e: WatchEvent): string => (e.type === 'put' ? e.item.key : e.key);
export const eventRevision = (e: WatchEvent): number => (e.type === 'put' ? e.item.revision : e.revision);
export const describeEvent = (e: WatchEvent): string => `${e.type} ${eventKey(e)}`;

export interface Recorder {
  watcher: Watcher;
  events: WatchEvent[];
  /** Waits until an event at revision or later has arrived. */
  reach(revision: number, timeoutMs?: number): Promise<void>;
  /** Waits until an event for key has arrived (optionally of a given type). */
  sawKey(key: string, type?: WatchEvent['type'], timeoutMs?: number): Promise<void>;
}

export async function record(backend: Backend, prefixes: string[]): Promise<Recorder> {
  const events: WatchEvent[] = [];
  const watcher = await backend.watch(prefixes, (batch) => events.push(...batch));
  const latest = (): number => events.reduce((max, e) => Math.max(max, eventRevision(e)), 0);
  return {
    watcher,
    events,
    reach: (revision, timeoutMs) =>
      eventually(() => latest() >= revision, `watch event at revision ${revision} (latest ${latest()})`, timeoutMs),
    sawKey: (key, type, timeoutMs) =>
      eventually(
        () => events.some((e) => eventKey(e) === key && (type === undefined || e.type === type)),
        `${type ?? 'any'} event for ${key}`,
        timeoutMs,
      ),
  };
}

/** Orders strings by Unicode code point, the order a byte-wise UTF-8 comparison gives. */
export function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return x.length - y.length;
}

/** Registers one test that runs body against a fresh fixture and always cleans it up. */
export type BackendCase = (
  title: string,
  body: (f: BackendFixture, t: TestContext) => Promise<void>,
  open?: BackendOpenOptions,
) => void;
