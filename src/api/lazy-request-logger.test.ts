import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import { lazyRequestLoggers } from './lazy-request-logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level: 'info' }, stream);
  // Counts the pino children built: a request that logs nothing should build none.
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((b: pino.Bindings, o?: pino.ChildLoggerOptions) => {
    children++;
    return child(b, o);
  }) as unknown as typeof logger.child;
  return { lines, logger, built: () => children };
}

test('no child is built until the request logs; then its lines carry the bindings', async () => {
  const { lines, logger, built } = capture();

  const log = lazyRequestLoggers(logger).child({ reqId: 'req_1' });
  assert.equal((log as unknown as pino.Logger).isLevelEnabled('debug'), false);
  assert.equal((log as unknown as pino.Logger).isLevelEnabled('info'), true);
  log.debug('not logged');
  assert.equal(log.level, 'info');
  assert.equal(built(), 0, 'a call below the level builds nothing');
  assert.equal((log as unknown as pino.Logger).isLevelEnabled('error'), true);
  assert.equal(built(), 0, 'asking the level builds nothing');

  log.error({ status: 500 }, 'request failed');
  log.warn('again');
  await new Promise((r) => setImmediate(r));
  assert.equal(built(), 1, 'one child per request');
  assert.deepEqual(
    lines.map((l) => [l.reqId, l.msg, l.status]),
    [
      ['req_1', 'request failed', 500],
      ['req_1', 'again', undefined],
    ],
  );
});

test('given to Fastify: a request that logs nothing builds no logger; one that logs has its id and serializers', async () => {
  const { lines, logger, built } = capture();
  // As the API builds it: Fastify's own two lines per request are off (ours is logged on response).
  const app = Fastify({
    loggerInstance: lazyRequestLoggers(logger),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => 'req_7',
  });
  app.get('/quiet', async (request) => {
    request.log.debug('below the level');
    return {};
  });
  app.get('/loud', async (request) => {
    request.log.error({ err: new Error('boom') }, 'failed');
    return {};
  });
  await app.ready();
  // Fastify's own child of the root (with its serializers) is built on the first request, once.
  assert.equal((await app.inject('/quiet')).statusCode, 200);
  const before = built();
  assert.ok(before <= 1, `${before} loggers built for the first request`);
  for (let i = 0; i < 3; i++) assert.equal((await app.inject('/quiet')).statusCode, 200);
  assert.equal(built(), before, 'quiet requests build no logger');
  assert.equal(lines.length, 0);
  assert.equal((await app.inject('/loud')).statusCode, 200);
  await new Promise((r) => setImmediate(r));
  assert.equal(built(), before + 1, 'the request that logged built one');
  const line = lines.find((l) => l.msg === 'failed') as { reqId: string; err: { message: string; stack: string } };
  assert.equal(line.reqId, 'req_7');
  assert.equal(line.err.message, 'boom', 'the err serializer applies');
  assert.match(line.err.stack, /boom/);
  await app.close();
});
