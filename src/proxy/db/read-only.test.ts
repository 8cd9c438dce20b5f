// What a read-only session lets through, and how a refused statement is replaced in the stream.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReadOnlyGuard, readOnlyViolation } from './read-only.js';

const msg = (type: string, body: string) => {
  const b = Buffer.from(body);
  const out = Buffer.alloc(5 + b.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(b.length + 4, 1);
  b.copy(out, 5);
  return out;
};

describe('read-only sessions', () => {
  test('statements that could lift read-only are named; ordinary ones and SHOW pass', () => {
    for (const sql of [
      'SET default_transaction_read_only = off',
      'set /* x */ "default_transaction_read_only" to false',
      'RESET default_transaction_read_only',
      'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
      'begin read\n  write',
      'START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ/**/WRITE',
      'set transaction read write',
      "select set_config('a' || 'b', 'off', false)",
      'SET U&"d\\0065fault_transaction_read_only" = off',
    ]) {
      assert.ok(readOnlyViolation(sql), sql);
    }
    for (const sql of [
      'select * from orders where id = 1',
      'SHOW default_transaction_read_only',
      'BEGIN READ ONLY',
      'RESET ALL',
      'select read_write from t -- read write',
    ]) {
      assert.equal(readOnlyViolation(sql), undefined, sql);
    }
  });

  test('a refused Query is replaced in place; messages around it pass unchanged', () => {
    const guard = new ReadOnlyGuard();
    const before = msg('Q', 'select 1\0');
    const after = msg('S', '');
    const out = guard.filter(Buffer.concat([before, msg('Q', 'set default_transaction_read_only=off\0'), after]));
    assert.ok('chunk' in out);
    const chunk = out.chunk;
    assert.deepEqual(chunk.subarray(0, before.length), before);
    assert.deepEqual(chunk.subarray(chunk.length - after.length), after);
    const replaced = chunk.subarray(before.length, chunk.length - after.length);
    assert.equal(String.fromCharCode(replaced[0] as number), 'Q');
    assert.equal(replaced.readInt32BE(1), replaced.length - 1);
    assert.match(replaced.toString(), /RAISE EXCEPTION USING ERRCODE = '25006'/);
  });

  test('a refused statement split across chunks ends the session; the server turning it off too', () => {
    const guard = new ReadOnlyGuard();
    const m = msg('Q', 'begin read write\0');
    assert.deepEqual(guard.filter(m.subarray(0, 7)), { chunk: m.subarray(0, 7) });
    const out = guard.filter(m.subarray(7));
    assert.ok('end' in out && /READ WRITE/.test(out.end));
    const server = new ReadOnlyGuard();
    assert.equal(server.watch(msg('S', 'default_transaction_read_only\0on\0')), undefined);
    assert.match(server.watch(msg('S', 'default_transaction_read_only\0off\0'))?.why ?? '', /was turned off/);
  });

  test('the messages the server sent before reporting the setting off are handed on whole', () => {
    const guard = new ReadOnlyGuard();
    const error = msg('E', 'SERROR\0C42501\0Mpermission denied for table t\0\0');
    const lifted = guard.watch(Buffer.concat([error, msg('S', 'default_transaction_read_only\0off\0'), msg('Z', 'I')]));
    assert.match(lifted?.why ?? '', /was turned off/);
    assert.deepEqual(lifted?.before, error);
  });
});
