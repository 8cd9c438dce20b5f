import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { lazyChildLogger } from './lazy-request-logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

test('no child is built until the request logs; then its lines carry the bindings', async () => {
  const { lines, logger } = capture();
  let built = 0;
  const child = logger.child.bind(logger);
  logger.child = ((b: pino.Bindings, o?: pino.ChildLoggerOptions) => {
    built++;
    return child(b, o);
  }) as unknown as typeof logger.child;

  const log = lazyChildLogger(logger, { reqId: 'req_1' }, {});
  assert.equal((log as unknown as pino.Logger).isLevelEnabled('debug'), false);
  assert.equal((log as unknown as pino.Logger).isLevelEnabled('info'), true);
  log.debug('not logged');
  assert.equal(log.level, 'info');
  assert.equal(built, 0, 'a call below the level builds nothing');
  assert.equal((log as unknown as pino.Logger).isLevelEnabled('error'), true);
  assert.equal(built, 0, 'asking the level builds nothing');

  log.error({ status: 500 }, 'request failed');
  log.warn('again');
  await new Promise((r) => setImmediate(r));
  assert.equal(built, 1, 'one child per request');
  assert.deepEqual(
    lines.map((l) => [l.reqId, l.msg, l.status]),
    [
      ['req_1', 'request failed', 500],
      ['req_1', 'again', undefined],
    ],
  );
});
