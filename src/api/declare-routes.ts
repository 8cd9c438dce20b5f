// How a routes file declares its routes: per route only what differs — method, URL, permission,
// grants, summary, the request's shapes and the success status with its shape. The rest every /v1
// route shares is filled in here once: the collection's tags, the permission's resource, the
// problem+json answers (schemas.ts `responses`), the status code and the Location of a created item.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type {
  ContextConfigDefault,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { ApiResource, Verb } from '../rbac/types.js';
import type { App } from './app-types.js';
import type { GrantCheck, Permission } from './route-config.js';
import { responses } from './schemas.js';

/** One route's declaration. The success status is a key of its own: `200: User`, `204: Type.Null()`. */
export interface RouteDeclaration {
  /** A verb on the collection's resource, or a whole permission ('authenticated', another resource). */
  permission: Verb | Permission;
  /** What the route hands out (route-config.ts GRANT_CHECKS); every mutating route says it. */
  grants?: GrantCheck[];
  summary: string;
  /** Instead of the collection's tags. */
  tags?: string[];
  params?: TSchema;
  /** Request headers the route reads (documented as header parameters, e.g. If-Match). */
  headers?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  produces?: string[];
  /** A 201 answers the created item's path in Location: the route's URL, then the item's id. */
  location?: true;
  /** The answer holds a secret: Cache-Control: no-store, set before the handler runs (refusals too). */
  noStore?: true;
  200?: TSchema;
  201?: TSchema;
  204?: TSchema;
}

type Mutating = RouteDeclaration & { grants: GrantCheck[] };

type SuccessOf<D> = { [K in keyof D as K extends 200 | 201 | 204 ? K : never]: D[K] };

/** What Fastify and its TypeBox type provider see of a declaration: the schema of the route. */
type SchemaOf<D extends RouteDeclaration> = {
  params: D['params'];
  querystring: D['querystring'];
  body: D['body'];
  response: SuccessOf<D>;
};

type Handler<D extends RouteDeclaration> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  SchemaOf<D>,
  TypeBoxTypeProvider
>;

/** The handler as Fastify calls it, once the declaration's types have served the routes file. */
type RawHandler = (this: App, request: FastifyRequest, reply: FastifyReply) => unknown;

const SUCCESS = [200, 201, 204] as const;

export function declareRoutes(app: App, collection: { tags: string[]; resource?: ApiResource }) {
  function permissionOf(declared: Verb | Permission): Permission {
    if (typeof declared === 'object' || declared === 'public' || declared === 'authenticated') return declared;
    if (!collection.resource) throw new Error(`verb ${declared} declared on routes without a resource`);
    return { resource: collection.resource, verb: declared };
  }

  function route<D extends RouteDeclaration>(method: string, url: string, d: D, handler: Handler<D>): void {
    const statuses = SUCCESS.filter((s) => d[s] !== undefined);
    const status = statuses[0];
    if (statuses.length !== 1 || status === undefined) throw new Error(`${method} ${url}: declare one success status`);
    const { permission, grants, summary, tags, params, headers, querystring, body, produces } = d;
    const schema = {
      tags: tags ?? collection.tags,
      summary,
      ...(params && { params }),
      ...(headers && { headers }),
      ...(querystring && { querystring }),
      ...(body && { body }),
      ...(produces && { produces }),
      response: responses({ [status]: d[status] }),
    };
    const config = { permission: permissionOf(permission), ...(grants && { grants }) };
    // A 200 without Location is Fastify's default answer: the handler is registered as it is, so
    // the hot list routes pay for no wrapper. Otherwise the handler returns the body (nothing for
    // a 204) and the status and Location are set once it has succeeded.
    const given = handler as unknown as RawHandler;
    const answer: RawHandler =
      status === 200 && !d.location
        ? given
        : async function (request, reply) {
            const result = await given.call(this, request, reply);
            reply.code(status);
            if (d.location) reply.header('location', `${url}/${(result as { id: string }).id}`);
            return status === 204 ? reply.send(null) : result;
          };
    const guarded: RawHandler = d.noStore
      ? function (request, reply) {
          reply.header('cache-control', 'no-store');
          return answer.call(this, request, reply);
        }
      : answer;
    app.route({ method, url, config, schema, handler: guarded });
  }

  return {
    get: <D extends RouteDeclaration>(url: string, d: D, handler: Handler<D>) => route('GET', url, d, handler),
    post: <D extends Mutating>(url: string, d: D, handler: Handler<D>) => route('POST', url, d, handler),
    put: <D extends Mutating>(url: string, d: D, handler: Handler<D>) => route('PUT', url, d, handler),
    patch: <D extends Mutating>(url: string, d: D, handler: Handler<D>) => route('PATCH', url, d, handler),
    delete: <D extends Mutating>(url: string, d: D, handler: Handler<D>) => route('DELETE', url, d, handler),
  };
}
