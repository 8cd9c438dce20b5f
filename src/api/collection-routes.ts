// The usual routes of a named collection — list, create, get, replace (PUT) or update (PATCH), delete —
// declared from its schemas and its service's functions. What they share is written here once: the
// URLs (`/v1/roles`, `/v1/roles/:id`), the verb each needs on the collection's resource, the :id
// params, a created item's 201 with Location, a deletion's 204. A routes file says per route only its
// summary, grants, schemas and what it calls, and declares any other route with declareRoutes as before;
// it calls these in the order its routes should stand in docs/openapi.json.
//
// Optimistic concurrency, the same for every collection: GET of one item answers its ETag (the stored
// record's revision), and PUT, PATCH and DELETE carry If-Match into the request context, where the
// service compares it with the record it changes and writes with a compare-and-set on that revision
// (auth/preconditions.ts). A stale If-Match is a 412 and nothing is written; without one, as before.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, parseIfMatch } from '../auth/preconditions.js';
import type { Principal, RequestContext } from '../auth/principal.js';
import type { declareRoutes } from './declare-routes.js';
import { authenticatedContext } from './request-context.js';
import type { GrantCheck } from './route-config.js';

type Ctx = RequestContext & { principal: Principal };
type Answer<S extends TSchema> = Static<S> | Promise<Static<S>>;
/** What a route that changes the collection declares: grants are its own to say (route-config.ts). */
type Change = { summary: string; grants: GrantCheck[] };
type IdRequest = FastifyRequest<{ Params: { id: string }; Body: unknown; Querystring: unknown }>;
/** A stored record as a service finds it: its value and the revision the ETag is made of. */
type Stored<R> = { value: R; revision: number };

/** The request header a change may carry (documented; the value is read by parseIfMatch). */
const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current',
    }),
  ),
});
type Raw = (request: IdRequest, reply: FastifyReply) => unknown;

export function collectionRoutes(route: ReturnType<typeof declareRoutes>, url: string, params: TSchema) {
  const itemUrl = `${url}/:id`;
  // The typed front (the functions below) stands for the handler's types: declareRoutes gets the raw one.
  const add = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', at: string, d: object, handler: Raw) =>
    (route[method] as (url: string, d: never, handler: never) => void)(at, d as never, handler as never);
  const ctx = (request: IdRequest) => authenticatedContext(request as FastifyRequest);
  /** The context of a change of one item: with the versions If-Match allows, if it was sent. */
  const changeCtx = (request: IdRequest): Ctx => {
    const ifMatch = parseIfMatch(request.headers['if-match']);
    return ifMatch === undefined ? ctx(request) : { ...ctx(request), ifMatch };
  };

  function remove(d: Change, run: (ctx: Ctx, id: string) => Promise<unknown>): void;
  function remove<A extends TSchema>(d: Change & { 200: A }, run: (ctx: Ctx, id: string) => Promise<Static<A>>): void;
  /** DELETE url/:id: 204 with no body, or 200 with what was ended when the declaration names its shape. */
  function remove(d: Change & { 200?: TSchema }, run: (ctx: Ctx, id: string) => Promise<unknown>): void {
    const answer = d[200];
    add(
      'delete',
      itemUrl,
      { permission: 'delete', params, headers: IfMatchHeader, ...d, ...(answer === undefined && { 204: Type.Null() }) },
      answer === undefined
        ? async (request) => {
            await run(changeCtx(request), request.params.id);
          }
        : async (request) => run(changeCtx(request), request.params.id),
    );
  }

  return {
    /** GET url: a page of the collection, answered by `run` (through the reply for a memoized page). */
    list<Q extends TSchema, L extends TSchema>(
      d: { summary: string; querystring: Q; 200: L },
      run: (query: Static<Q>, reply: FastifyReply, ctx: Ctx) => Static<L> | undefined,
    ) {
      add('get', url, { permission: 'list', ...d }, (request, reply) =>
        run(request.query as Static<Q>, reply, ctx(request)),
      );
    },
    /** POST url: 201 with the created item, its path in Location. */
    create<B extends TSchema, A extends TSchema>(
      d: Change & { body: B; 201: A },
      run: (ctx: Ctx, body: Static<B>) => Promise<Static<A>>,
    ) {
      add('post', url, { permission: 'create', ...d, location: true }, async (request) =>
        run(ctx(request), request.body as Static<B>),
      );
    },
    /** GET url/:id: the record `find` finds, answered as `answer` makes it, with its ETag. */
    get<R, A extends TSchema>(
      d: { summary: string; 200: A },
      find: (id: string, ctx: Ctx) => Stored<R>,
      answer: (record: R) => Answer<A>,
    ) {
      add('get', itemUrl, { permission: 'read', params, ...d }, async (request, reply) => {
        const stored = find(request.params.id, ctx(request));
        reply.header('etag', etagOf(stored.revision));
        return answer(stored.value);
      });
    },
    /** PUT url/:id: the item replaced whole. */
    replace<B extends TSchema, A extends TSchema>(d: Change & { body: B; 200: A }, run: ItemChange<B, A>) {
      add('put', itemUrl, { permission: 'update', params, headers: IfMatchHeader, ...d }, async (request) =>
        run(changeCtx(request), request.params.id, request.body as Static<B>),
      );
    },
    /** PATCH url/:id: the fields sent changed. */
    update<B extends TSchema, A extends TSchema>(d: Change & { body: B; 200: A }, run: ItemChange<B, A>) {
      add('patch', itemUrl, { permission: 'update', params, headers: IfMatchHeader, ...d }, async (request) =>
        run(changeCtx(request), request.params.id, request.body as Static<B>),
      );
    },
    remove,
  };
}

type ItemChange<B extends TSchema, A extends TSchema> = (ctx: Ctx, id: string, body: Static<B>) => Promise<Static<A>>;
