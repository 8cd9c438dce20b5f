// What the minimal forwarders of bench:app and bench:kube share: one request through undici's
// dispatch handler, each chunk of the answer written straight to the client as it comes, as the
// doors do (src/proxy/common/http-forward.ts) — the least work: no body stream and no pipe between
// them; backpressure by pausing undici's read; a client gone aborts the upstream request.
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export function dispatchTo(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  res: ServerResponse,
  onStatus: (status: number) => void = () => {},
): void {
  let controller: Dispatcher.DispatchController | undefined;
  res.on('close', () => {
    if (!res.writableFinished) controller?.abort(new Error('client gone'));
  });
  dispatcher.dispatch(options, {
    onRequestStart(c) {
      controller = c;
    },
    onResponseStart(_c, status, answer) {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer)) if (value !== undefined && !HOP.has(name)) out[name] = value;
      res.writeHead(status, out);
      onStatus(status);
    },
    onResponseData(c, chunk) {
      if (!res.write(chunk)) {
        c.pause();
        res.once('drain', () => c.resume());
      }
    },
    onResponseEnd: () => void res.end(),
    onResponseError: () => void res.destroy(),
  });
}
