// One HTTP request forwarded to an upstream and its answer written straight to the client, for the
// HTTP doors. undici's dispatch handler is given the client's response: each chunk the upstream
// sends is written as it arrives (backpressure by pausing undici's read of the upstream socket), with
// no body stream, pipe or AbortController between them. With `request()` + pipe the app door spent
// about twice the CPU per proxied GET (bench:app at 16 connections, 2026-12-02: 360–453 µs before,
// 167–219 after; the BodyReadable, the relay's listeners, a per-request AbortController).
// Same contract as relay.ts: resolves once the client has the whole answer, or once it is known the
// client will not (the upstream failed, the client went away); never rejects.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { HEADERS_WAIT_MS } from './relay.js';

export interface ForwardOutcome {
  /** The upstream's status; 0 when it never answered. */
  status: number;
  /** Body bytes written to the client. */
  bytesOut: number;
  /** Why the upstream could not be reached, or why its answer was cut (the client was cut too). */
  error?: Error;
  /** The client went away before the whole answer. */
  gone?: boolean;
}

/** A header the client must not receive, or a value rewritten: the door's response-header filter. */
export type ResponseHeaders = (headers: IncomingHttpHeaders) => Record<string, string | string[]>;

export function forwardHttp(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  res: ServerResponse,
  responseHeaders: ResponseHeaders,
): Promise<ForwardOutcome> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let bytesOut = 0;
    let settled = false;
    let early: NodeJS.Timeout | undefined;
    let waitingForDrain = false;
    const settle = (outcome: Omit<ForwardOutcome, 'status' | 'bytesOut'> = {}) => {
      clearTimeout(early);
      if (settled) return;
      settled = true;
      resolve({ status, bytesOut, ...outcome });
    };
    const onDrain = () => {
      waitingForDrain = false;
      controller?.resume();
    };
    res.once('finish', () => settle());
    res.once('close', () => {
      if (res.writableFinished) return;
      settle({ gone: true }); // first: the abort below calls onResponseError at once
      controller?.abort(new Error('the client went away before the whole answer'));
    });
    dispatcher.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        if (settled) c.abort(new Error('the client went away before the request was sent'));
      },
      onResponseStart(c, statusCode, headers) {
        if (statusCode < 200) return; // informational (103 Early Hints): the final answer follows
        status = statusCode;
        try {
          res.writeHead(statusCode, responseHeaders(headers));
        } catch (error) {
          // A header Node will not send (a control character in a value): the client gets a 502.
          status = 0;
          c.abort(error as Error);
          return;
        }
        // An answer of unknown length (SSE, chunked) that stays quiet still shows its headers soon;
        // one that answers at once goes out in one write with its first chunk.
        if (headers['content-length'] === undefined)
          early = setTimeout(() => {
            if (!res.destroyed) res.flushHeaders();
          }, HEADERS_WAIT_MS);
      },
      onResponseData(c, chunk) {
        clearTimeout(early);
        bytesOut += chunk.length;
        if (!res.write(chunk) && !waitingForDrain) {
          waitingForDrain = true;
          c.pause();
          res.once('drain', onDrain);
        }
      },
      onResponseEnd() {
        clearTimeout(early);
        res.end();
      },
      onResponseError(_c, error) {
        clearTimeout(early);
        if (settled) return;
        // Headers already sent: an answer cut short must not look whole (no end(): the client sees
        // a reset, or a chunked answer without its last chunk). Before them, the door answers 502.
        if (res.headersSent) res.destroy();
        settle({ error });
      },
    });
  });
}
