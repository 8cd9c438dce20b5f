// Protected resources (databases, servers, apps). Everyone sees only what their roles' selectors
// match; a resource you may not see does not exist for you (404).

import type { Static } from '@sinclair/typebox';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../../auth/principal.js';
import { keys } from '../../auth/records.js';
import type { StateStore } from '../../backend/state.js';
import { type Clock, isoTime } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { globMatch } from '../../rbac/policy.js';
import { translateConflicts } from '../conflicts.js';
import { invalidField, notFound } from '../errors.js';
import { page, parseLabelFilter } from '../schemas.js';
import type { Resource, ResourceInput as ResourceInputSchema } from './resources.schema.js';

export type ResourceRecord = Static<typeof Resource>;
export type ResourceInput = Static<typeof ResourceInputSchema>;
export type ProtectedKind = ResourceRecord['kind'];

const ID_KIND = { database: 'database', server: 'server', app: 'app' } as const;

export const toResourceResponse = (r: ResourceRecord) => r;

/** Which fields each kind takes; anything else is refused with its path. */
const FIELDS: Record<ProtectedKind, { required: Array<keyof ResourceInput>; forbidden: Array<keyof ResourceInput> }> = {
  database: { required: ['address', 'protocol'], forbidden: ['uri'] },
  server: { required: ['address'], forbidden: ['protocol', 'uri'] },
  app: { required: ['uri'], forbidden: ['address', 'protocol'] },
};

export type ResourceService = ReturnType<typeof createResourceService>;

export function createResourceService(deps: { state: StateStore; audit: AuditLog; clock: Clock }) {
  const { state, audit, clock } = deps;
  const visible = (p: Principal | undefined, r: ResourceRecord) => p !== undefined && p.policy.canSee(r);

  function findVisible(ctx: RequestContext, id: string) {
    const item = state.get<ResourceRecord>(keys.resource(id));
    if (!item || !visible(ctx.principal, item.value)) throw notFound('resource', id);
    return item;
  }

  return {
    list(
      ctx: RequestContext,
      q: { page: number; per_page: number; kind?: ProtectedKind; name?: string; label?: string[] },
    ) {
      const labels = parseLabelFilter(q.label);
      const all = state
        .list<ResourceRecord>('resources/')
        .map((i) => i.value)
        .filter(
          (r) =>
            (q.kind === undefined || r.kind === q.kind) &&
            (q.name === undefined || r.name === q.name) &&
            labels.every(([k, v]) => r.labels[k] !== undefined && globMatch(v, r.labels[k] as string)) &&
            visible(ctx.principal, r),
        );
      return page(all, q);
    },

    get: (ctx: RequestContext, id: string) => findVisible(ctx, id).value,

    async create(ctx: RequestContext, input: ResourceInput): Promise<ResourceRecord> {
      const rules = FIELDS[input.kind];
      for (const field of rules.required) {
        if (input[field] === undefined) throw invalidField(`/body/${field}`, `is required for a ${input.kind}`);
      }
      for (const field of rules.forbidden) {
        if (input[field] !== undefined) throw invalidField(`/body/${field}`, `does not apply to a ${input.kind}`);
      }
      const now = clock();
      const record: ResourceRecord = {
        ...input,
        id: newId(ID_KIND[input.kind], now),
        description: input.description ?? '',
        labels: input.labels ?? {},
        created_at: isoTime(now),
        updated_at: isoTime(now),
      };
      const nameKey = keys.resourceName(record.kind, record.name);
      await translateConflicts(() => state.insert(keys.resource(record.id), record, { indexKeys: [nameKey] }), {
        [nameKey]: `a ${record.kind} named ${JSON.stringify(record.name)} already exists`,
      });
      await audit.record({
        type: 'resource.created',
        actor: actorOf(ctx),
        target: { kind: record.kind, id: record.id, name: record.name },
        ...eventContext(ctx),
        data: { labels: record.labels },
      });
      return record;
    },

    async remove(ctx: RequestContext, id: string): Promise<void> {
      const item = findVisible(ctx, id);
      const r = item.value;
      await translateConflicts(() =>
        state.remove(item.key, { revision: item.revision, indexKeys: [keys.resourceName(r.kind, r.name)] }),
      );
      await audit.record({
        type: 'resource.deleted',
        actor: actorOf(ctx),
        target: { kind: r.kind, id: r.id, name: r.name },
        ...eventContext(ctx),
      });
    },
  };
}
