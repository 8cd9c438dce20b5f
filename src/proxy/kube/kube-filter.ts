// Lists and watches narrowed to what kube_resources allow: the API server answers for the impersonated
// groups, which may reach more than the role does, so the items the role does not reach are dropped
// from the answer — a List's items, a Table's rows (kubectl get), and a watch's events one by one as
// they stream. Filtered requests ask upstream for uncompressed JSON so the proxy can read them.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export interface KubeMeta {
  metadata?: { namespace?: string; name?: string };
}

/**
 * What the proxy holds to filter: a whole list answer (read before any of it is sent), and one watch
 * event. Past either, the answer is cut, never buffered without end; a larger list is paged by the
 * client (`kubectl get --chunk-size`, `?limit=&continue=`).
 */
export const MAX_FILTERED_LIST_BYTES = 64 * 1024 * 1024;
export const MAX_WATCH_EVENT_BYTES = 16 * 1024 * 1024;

/** Whether one object of the answer may be shown. */
export type ItemFilter = (object: KubeMeta) => boolean;

interface Listing {
  kind?: string;
  items?: KubeMeta[];
  rows?: Array<{ object?: KubeMeta }>;
}

/** JSON instead of protobuf, and no compression, for an answer the proxy must read. */
export function filterableRequest(headers: OutgoingHttpHeaders): void {
  delete headers['accept-encoding'];
  const accept = String(headers.accept ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a && !a.includes('protobuf'));
  headers.accept = accept.length ? accept.join(',') : 'application/json';
}

export const isJson = (headers: IncomingHttpHeaders): boolean =>
  /^application\/json\b/.test(headers['content-type'] ?? '') && !headers['content-encoding'];

/** Drops the items or rows the filter refuses; anything else (a Status, one object) passes as is. */
export function filterListing(value: Listing, keep: ItemFilter): Listing {
  if (Array.isArray(value.items)) return { ...value, items: value.items.filter(keep) };
  if (value.kind === 'Table' && Array.isArray(value.rows))
    return { ...value, rows: value.rows.filter((r) => keep(r.object ?? {})) };
  return value;
}

export function filterBody(body: Buffer, keep: ItemFilter): Buffer {
  try {
    return Buffer.from(JSON.stringify(filterListing(JSON.parse(body.toString()) as Listing, keep)));
  } catch {
    // Not JSON after all: nothing the proxy could check item by item, so nothing is shown.
    return Buffer.from('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":502}');
  }
}

/**
 * A watch stream (one JSON event per line) with the events of unreached objects dropped; a Table
 * event keeps its reached rows, or is dropped when none is left. BOOKMARK and ERROR pass.
 */
export function watchFilter(keep: ItemFilter, maxEventBytes = MAX_WATCH_EVENT_BYTES): Transform {
  let pending = '';
  const decoder = new StringDecoder('utf8');
  const handle = (line: string, out: Transform) => {
    if (!line.trim()) return;
    let event: { type?: string; object?: Listing & KubeMeta };
    try {
      event = JSON.parse(line);
    } catch {
      return; // a line the proxy cannot read is not shown
    }
    const object = event.object ?? {};
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') out.push(`${line}\n`);
    else if (object.kind === 'Table') {
      const rows = filterListing(object, keep).rows ?? [];
      if (rows.length > 0) out.push(`${JSON.stringify({ ...event, object: { ...object, rows } })}\n`);
    } else if (keep(object)) out.push(`${line}\n`);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      pending += decoder.write(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) handle(line, this);
      // An event without an end in sight is not held on to: the watch ends (the client re-watches).
      if (pending.length > maxEventBytes) done(new Error('a watch event exceeded the proxy bound'));
      else done();
    },
    flush(done) {
      handle(pending + decoder.end(), this);
      done();
    },
  });
}
