// An upstream answer's body relayed to the client, for the HTTP doors (apps, MCP). What
// stream/promises' pipeline does for two streams, without its per-call AbortController: on Node 20
// pipeline aborts that controller when it finishes, and the DOMException the abort builds (a stack
// captured each time) was about a tenth of the app door's CPU per proxied GET (bench:app profile).
// Same contract: resolves once the client has the whole answer; rejects, with both streams
// destroyed, when the upstream body fails or the client goes away first.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * How long the headers of an answer of unknown length (SSE, chunked) may wait for its first chunk
 * to go out with it: a stream that stays quiet longer (a watch, a long tool call) still shows its
 * headers at once to the client; one that answers at once (most tool calls) costs one write, not two.
 */
export const HEADERS_WAIT_MS = 20;

export function relay(from: Readable, to: ServerResponse, opts: { unknownLength?: boolean } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    // (headersSent is already true after writeHead: it says the head is fixed, not that it left.)
    const early = opts.unknownLength
      ? setTimeout(() => {
          if (!to.destroyed) to.flushHeaders();
        }, HEADERS_WAIT_MS)
      : undefined;
    if (early) from.once('data', () => clearTimeout(early));
    const fail = (error: Error) => {
      clearTimeout(early);
      if (settled) return;
      settled = true;
      from.destroy();
      to.destroy();
      reject(error);
    };
    from.once('error', fail);
    to.once('error', fail);
    to.once('finish', () => {
      clearTimeout(early);
      if (settled) return;
      settled = true;
      resolve();
    });
    to.once('close', () => {
      if (!to.writableFinished) fail(new Error('the client went away before the whole answer'));
    });
    // A body closed before its end without an error (destroyed) would leave the answer open forever.
    from.once('close', () => {
      if (!from.readableEnded) fail(new Error('the upstream closed before the whole answer'));
    });
    from.pipe(to);
  });
}
