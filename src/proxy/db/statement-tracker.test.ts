// Bind parameters in db.query events (role option db_record_parameters): read from Bind messages as
// node-postgres writes them, cut to the configured length, and absent unless the option is on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serialize } from 'pg-protocol';
import { bindParameters, type StatementOutcome, StatementTracker } from './statement-tracker.js';

const C = (ch: string) => ch.charCodeAt(0);
/** The body of a message pg-protocol serialized (type byte and length dropped). */
const body = (message: Buffer) => message.subarray(5);

describe('bind parameters', () => {
  test('text, NULL and binary values, with per-value format codes', () => {
    const bind = body(serialize.bind({ statement: 's1', values: ['42', null, Buffer.from([1, 2, 255])] }));
    assert.deepEqual(bindParameters(bind, 1000), { values: ['42', null, '\\x0102ff'], truncated: false });
  });

  test('the values are cut to the budget, and a head shorter than the message says truncated', () => {
    const bind = body(serialize.bind({ values: ['abcdef', 'ghijkl'] }));
    assert.deepEqual(bindParameters(bind, 8), { values: ['abcdef', 'gh'], truncated: true });
    // The message ends with 4 bytes of result-format codes: 8 fewer bytes keep 2 of the second value.
    assert.deepEqual(bindParameters(bind.subarray(0, bind.length - 8), 1000), {
      values: ['abcdef', 'gh'],
      truncated: true,
    });
  });

  test('the tracker attaches them to the statement only when asked', () => {
    const run = (record: boolean): StatementOutcome[] => {
      const seen: StatementOutcome[] = [];
      const t = new StatementTracker(
        4096,
        () => 0,
        (s) => seen.push(s),
        record,
      );
      const client = (m: Buffer) => {
        const type = m[0] as number;
        const b = body(m);
        t.onClientMessage(type, b.subarray(0, t.clientWant(type)), b.length);
      };
      client(serialize.parse({ name: '', text: 'select $1::int + $2::int' }));
      client(serialize.bind({ values: ['40', '2'] }));
      client(serialize.execute({}));
      client(serialize.sync());
      t.onServerMessage(C('1'), Buffer.alloc(0));
      t.onServerMessage(C('2'), Buffer.alloc(0));
      t.onServerMessage(C('C'), Buffer.from('SELECT 1\0'));
      t.onServerMessage(C('Z'), Buffer.from('I'));
      return seen;
    };
    const recorded = run(true);
    assert.equal(recorded.length, 1);
    assert.deepEqual(recorded[0]?.parameters, ['40', '2']);
    assert.equal(recorded[0]?.parametersTruncated, false);
    const plain = run(false);
    assert.equal(plain.length, 1, 'control: the statement is recorded either way');
    assert.equal(plain[0]?.parameters, undefined);
  });
});
