// A create names its object in the body, not the URL (POST …/pods with metadata.name). To decide it
// by name, as kube_resources' name globs mean, the proxy reads the body first: without this a create
// was allowed only by a rule for every name with no deny at all, so "pods web-* in default, never
// secret-*" could create nothing. The body is bounded like the API server's own (3 MiB) and forwarded
// byte for byte; a body that names nothing (generateName, not JSON) stays unnamed and needs a rule
// for every name. The API server refuses an object whose namespace differs from the URL's.
import type { IncomingMessage } from 'node:http';

export const CREATE_BODY_LIMIT = 3 * 1024 * 1024;

export type CreateBody = { ok: true; body: Buffer; name?: string } | { ok: false; code: 413 | 400; message: string };

export function readCreateBody(req: IncomingMessage, limit = CREATE_BODY_LIMIT): Promise<CreateBody> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      resolve({ ok: false, code: 413, message: `gatehouse: a create body is limited to ${limit} bytes` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve({ ok: false, code: 413, message: `gatehouse: a create body is limited to ${limit} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => resolve({ ok: false, code: 400, message: 'gatehouse: the request body was cut off' }));
    req.on('end', () => {
      if (size > limit) return;
      const body = Buffer.concat(chunks, size);
      const name = nameInBody(body, String(req.headers['content-type'] ?? ''));
      resolve({ ok: true, body, ...(name ? { name } : {}) });
    });
  });
}

/** metadata.name of a JSON object body; undefined when there is none or the body is not JSON. */
export function nameInBody(body: Buffer, contentType: string): string | undefined {
  if (!/^application\/json\b/i.test(contentType)) return undefined;
  try {
    const name = (JSON.parse(body.toString('utf8')) as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}
