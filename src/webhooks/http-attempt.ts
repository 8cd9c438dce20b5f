// One delivery attempt over HTTP(S): a POST with a deadline, no redirects followed, the URL policy
// applied again (config may have changed) and to the resolved address. Never throws: the outcome,
// success or not, is what gets recorded.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrl, publicOnlyLookup, type UrlPolicy } from './url-policy.js';

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

const MAX_ERROR = 300;
const guardedLookup = publicOnlyLookup();
/** Response bytes read (and dropped) before the connection is closed; receivers should answer briefly. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; policy: UrlPolicy; signal?: AbortSignal },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, statusCode: number | null = null): AttemptOutcome => ({
    ok: false,
    statusCode,
    latencyMs: elapsed(),
    error: error.slice(0, MAX_ERROR),
  });

  const verdict = checkWebhookUrl(rawUrl, opts.policy);
  if (!verdict.ok) return Promise.resolve(failed(`the URL ${verdict.reason}`));
  const { url, allowListed } = verdict;

  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      ...(allowListed ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => {
      settle(failed(`no response within ${opts.timeoutMs} ms`));
      req.destroy();
    }, opts.timeoutMs);
    const onAbort = () => {
      settle(failed('cancelled: the dispatcher is shutting down'));
      req.destroy();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) settle({ ok: true, statusCode: status, latencyMs: elapsed(), error: null });
      else if (status >= 300 && status < 400) settle(failed(`HTTP ${status}: redirects are not followed`, status));
      else settle(failed(`HTTP ${status}`, status));
      // The outcome is known; read (and drop) a bounded body so the receiver is not cut off mid-write.
      let read = 0;
      const drain = setTimeout(() => res.destroy(), opts.timeoutMs);
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on('close', () => clearTimeout(drain));
      res.on('error', () => undefined);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      settle(
        failed(error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message),
      );
    });
    req.end(body);
  });
}
