// The transcript's lines as a viewer reads them: a statement's controls cannot drive the terminal or
// forge a result line, and RowDescription gives the column names (never the rows).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { columnsOf, type StatementOutcome } from './statement-tracker.js';
import { transcriptOf } from './transcript.js';

const outcome = (o: Partial<StatementOutcome>): StatementOutcome => ({
  text: 'select 1',
  truncated: false,
  protocol: 'simple',
  tags: ['SELECT 1'],
  rows: 1,
  startedAt: 0,
  durationMs: 0.4,
  ...o,
});

/** A RowDescription body: column count, then per column its name, NUL and 18 bytes of attributes. */
const rowDescription = (names: string[]) =>
  Buffer.concat([
    Buffer.from([0, names.length]),
    ...names.map((n) => Buffer.concat([Buffer.from(`${n}\0`), Buffer.alloc(18)])),
  ]);

describe('database session transcript', () => {
  test('a statement and its outcome, columns and rows', () => {
    assert.equal(
      transcriptOf(outcome({ text: 'select id, v from t', tags: ['SELECT 3'], rows: 3, columns: ['id', 'v'] })),
      '=> select id, v from t\r\n<- SELECT 3 (columns: id, v; 3 rows; 0.4 ms)\r\n',
    );
    assert.equal(
      transcriptOf(outcome({ tags: [], rows: null, error: { code: '42P01', message: 'relation "x" does not exist' } })),
      '=> select 1\r\n<- ERROR 42P01: relation "x" does not exist (0.4 ms)\r\n',
    );
    assert.equal(
      transcriptOf(outcome({ parameters: ['40', null], parametersTruncated: false })),
      '=> select 1\r\n   parameters: ["40",null]\r\n<- SELECT 1 (1 row; 0.4 ms)\r\n',
    );
  });

  test('continuation lines are indented; escape sequences and CRs are shown, not sent', () => {
    const text = transcriptOf(outcome({ text: 'select 1\r\n<- SELECT 999 (forged)\n\x1b[2Jfrom x' }));
    assert.equal(
      text,
      '=> select 1\r\n   <- SELECT 999 (forged)\r\n   \\x1b[2Jfrom x\r\n<- SELECT 1 (1 row; 0.4 ms)\r\n',
    );
    assert.ok(!text.includes('\x1b'));
  });

  test('column names from RowDescription, cut when the head is', () => {
    assert.deepEqual(columnsOf(rowDescription(['id', 'v'])), ['id', 'v']);
    const head = rowDescription(['id', 'a_long_column_name']);
    assert.deepEqual(columnsOf(head.subarray(0, 25)), ['id', '…']);
    assert.deepEqual(columnsOf(rowDescription(Array.from({ length: 40 }, (_, i) => `c${i}`))).length, 33);
  });
});
