// Reads into a reused buffer: a chunk someone still holds is never overwritten, chunks read before
// anyone takes them arrive later in order, and a message split across two reads into the same
// buffer still reaches the frame scanner whole.
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { FrameScanner } from './frame-scanner.js';
import { ReusedReads } from './reused-reads.js';

/** What net does per read: fill the buffer `onread.buffer()` gave, call back, ask for the next one. */
function deliver(reads: ReusedReads, into: Buffer, bytes: string): Buffer {
  const n = into.write(bytes, 'latin1');
  reads.onread.callback(n, into);
  return reads.onread.buffer();
}

describe('reused reads', () => {
  test('the buffer is reused unless the chunk handed on was held', () => {
    const reads = new ReusedReads();
    const seen: Buffer[] = [];
    let holdNext = false;
    reads.sendTo((chunk) => {
      seen.push(chunk);
      if (holdNext) reads.hold();
    });
    const first = reads.onread.buffer();
    const second = deliver(reads, first, 'one');
    assert.equal(second, first, 'not held: the same buffer again');
    holdNext = true;
    const third = deliver(reads, second, 'two');
    assert.notEqual(third, second, 'held: a new buffer');
    holdNext = false;
    deliver(reads, third, 'six');
    assert.equal(seen[1]?.toString(), 'two', 'the held chunk is intact after the next read');
    assert.equal(seen[2]?.toString(), 'six');
  });

  test('chunks read with no one to take them are kept (copied) and handed on first, in order', () => {
    const reads = new ReusedReads();
    const buffer = reads.onread.buffer();
    deliver(reads, buffer, 'ab');
    deliver(reads, buffer, 'cd');
    const seen: string[] = [];
    reads.sendTo((chunk) => seen.push(chunk.toString()));
    deliver(reads, buffer, 'ef');
    assert.deepEqual(seen, ['ab', 'cd', 'ef']);
  });

  test('a message split across two reads into the same buffer is scanned whole', () => {
    const heads: string[] = [];
    const scanner = new FrameScanner(
      () => 100,
      (_type, head) => heads.push(head.toString()),
    );
    const reads = new ReusedReads();
    reads.sendTo((chunk) => scanner.scan(chunk));
    const message = Buffer.concat([Buffer.from('C'), Buffer.alloc(4), Buffer.from('SELECT 1\0')]);
    message.writeInt32BE(message.length - 1, 1);
    const buffer = reads.onread.buffer();
    deliver(reads, buffer, message.subarray(0, 8).toString('latin1'));
    deliver(reads, buffer, message.subarray(8).toString('latin1'));
    assert.deepEqual(heads, ['SELECT 1\0']);
  });

  test('a chunk whose write to a stalled socket is queued is not overwritten by the next read', async () => {
    let receiver: Socket | undefined;
    const server = createServer((socket) => {
      receiver = socket;
      socket.pause(); // reads nothing until the end: the sender's writes back up
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sender = connect({ host: '127.0.0.1', port: (server.address() as { port: number }).port });
    await new Promise((resolve) => sender.once('connect', resolve));
    // Writes until one stays queued in the sender: the kernel's buffers are full.
    const filler = Buffer.alloc(64 * 1024, 0x2e);
    let sent = 0;
    while (sender.writableLength === 0) {
      sender.write(filler);
      sent += filler.length;
    }
    const reads = new ReusedReads();
    reads.sendTo((chunk) => reads.write(sender, chunk));
    let buffer = reads.onread.buffer();
    buffer = deliver(reads, buffer, 'A'.repeat(1000));
    buffer = deliver(reads, buffer, 'B'.repeat(1000));
    const received: Buffer[] = [];
    const all = sent + 2000;
    const done = new Promise<void>((resolve) => {
      let n = 0;
      receiver?.on('data', (d: Buffer) => {
        received.push(d);
        n += d.length;
        if (n >= all) resolve();
      });
    });
    receiver?.resume();
    await done;
    sender.destroy();
    server.close();
    const tail = Buffer.concat(received).subarray(sent).toString('latin1');
    assert.equal(tail, 'A'.repeat(1000) + 'B'.repeat(1000));
  });

  test('through a real socket: every byte arrives, in order', async () => {
    const server = createServer((socket) => {
      for (let i = 0; i < 200; i++) socket.write(`${i},`);
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const reads = new ReusedReads();
    let text = '';
    let count = 0;
    reads.sendTo((chunk) => {
      text += chunk.toString();
      if (++count % 2 === 0) reads.hold();
    });
    const socket = connect({ host: '127.0.0.1', port, onread: reads.onread });
    await new Promise((resolve) => socket.once('close', resolve));
    server.close();
    assert.equal(text, Array.from({ length: 200 }, (_, i) => `${i},`).join(''));
  });
});
