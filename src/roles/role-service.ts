// Roles: built-in ones are always present and immutable; a role in use cannot be deleted.

import type { ServiceDeps } from '../audit/service-deps.js';
import type { Covering } from '../auth/covering.js';
import { unlessChanged } from '../auth/preconditions.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import { type AgentRecord, keys, prefixes, type RoleRecord, type UserRecord } from '../auth/records.js';
import { heldFoldedKey, insertNamed, nameConflicts, renameIndexKeys } from '../auth/unique-names.js';
import { translateConflicts } from '../backend/conflicts.js';
import { awaitCached } from '../backend/state.js';
import { BackendError } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { conflict, found, invalidField } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { page } from '../lib/paging.js';
import { BUILTIN_ROLE_NAMES, BUILTIN_ROLES } from '../rbac/builtin-roles.js';
import { wideningOf } from '../rbac/coverage.js';
import { BUILTIN_KUBE_KINDS, kubeKindCorrection } from '../rbac/kube-kinds.js';
import { compileToolSchema } from '../rbac/mcp-tools.js';
import type { RoleSpec } from '../rbac/types.js';

export const toRoleResponse = (r: RoleRecord) => ({
  id: r.id,
  name: r.name,
  description: r.description ?? '',
  builtin: r.builtin,
  allow: r.allow,
  deny: r.deny ?? {},
  options: r.options ?? {},
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export type RoleService = ReturnType<typeof createRoleService>;

/**
 * A kube_resources kind is the resource as the URL names it (`pods`): a built-in's singular or short
 * name (`pod`, `po`) would be stored and match nothing, so it is refused with the name to use.
 */
function checkKubeKinds(spec: RoleSpec): void {
  for (const side of ['allow', 'deny'] as const) {
    (spec[side]?.kube_resources ?? []).forEach((rule, i) => {
      const plural = kubeKindCorrection(rule.kind);
      if (plural)
        throw invalidField(
          `/${side}/kube_resources/${i}/kind`,
          `${rule.kind} is not a resource name as the API's URLs carry it; write ${plural} (built-in kinds: ${BUILTIN_KUBE_KINDS.join(', ')}; a custom resource by its plural)`,
        );
    });
  }
}

/** An argument schema that does not compile would refuse every call to its tools: say so now. */
function checkMcpSchemas(spec: RoleSpec): void {
  (spec.allow.mcp_tool_arguments ?? []).forEach((entry, i) => {
    const compiled = compileToolSchema(entry.schema);
    if (compiled instanceof Error)
      throw invalidField(`/allow/mcp_tool_arguments/${i}/schema`, `is not a JSON Schema 2020-12: ${compiled.message}`);
  });
}

export function createRoleService(
  deps: ServiceDeps & {
    covering: Pick<Covering, 'require'>;
  },
) {
  const { state, audit, clock } = deps;

  function findItem(idOrName: string) {
    const key = idOrName.startsWith('role_')
      ? keys.role(idOrName)
      : state.get<{ ref: string }>(keys.roleName(idOrName))?.value.ref;
    return found(key ? state.get<RoleRecord>(key) : undefined, 'role', idOrName);
  }

  function holders(name: string): string[] {
    const users = state
      .list<UserRecord>(prefixes.users)
      .filter((u) => u.value.roles.includes(name))
      .map((u) => u.value.id);
    const agents = state
      .list<AgentRecord>(prefixes.agents)
      .filter((a) => a.value.roles.includes(name))
      .map((a) => a.value.id);
    return [...users, ...agents];
  }

  const event = (ctx: RequestContext, type: 'role.created' | 'role.updated' | 'role.deleted', role: RoleRecord) =>
    audit.record({
      type,
      actor: actorOf(ctx),
      target: { kind: 'role', id: role.id, name: role.name },
      ...eventContext(ctx),
    });

  return {
    /** Writes any built-in role that is missing (first start, or a new release adding one). */
    async ensureBuiltins(): Promise<void> {
      for (const spec of BUILTIN_ROLES) {
        if (state.get(keys.roleName(spec.name))) continue;
        const now = isoTime(clock());
        const record: RoleRecord = {
          ...spec,
          id: `role_${spec.name}`,
          builtin: true,
          created_at: now,
          updated_at: now,
        };
        // A role that differs only in case may predate the uniqueness rule; the built-in is still written
        // (without the folded key) and the start-up backfill warns about the pair.
        const folded = keys.roleFoldedName(spec.name);
        await state
          .insert(keys.role(record.id), record, {
            indexKeys: [keys.roleName(spec.name), ...(state.get(folded) ? [] : [folded])],
          })
          .catch(async (error: unknown) => {
            // Auth instances starting together race here; the one that lost finds the winner's role
            // once its watch delivers it, a moment later.
            if (!(error instanceof BackendError) || !(await awaitCached(state, keys.roleName(spec.name)))) throw error;
          });
      }
    },

    list(q: { page: number; per_page: number; name?: string }) {
      const roles = state
        .list<RoleRecord>(prefixes.roles)
        .map((i) => i.value)
        .filter((r) => q.name === undefined || r.name === q.name);
      return page(roles, q);
    },

    get: (idOrName: string) => findItem(idOrName).value,
    /** The stored role with its revision (its ETag). */
    getItem: (idOrName: string) => findItem(idOrName),

    async create(ctx: RequestContext, spec: RoleSpec): Promise<RoleRecord> {
      checkKubeKinds(spec);
      checkMcpSchemas(spec);
      // Judged as written, not for any holder: a trait template can expand to anything.
      await deps.covering.require(
        ctx,
        { roles: [spec] },
        { kind: 'role', name: spec.name },
        `create role ${spec.name}`,
      );
      const now = isoTime(clock());
      const record: RoleRecord = {
        ...spec,
        id: newId('role', clock()),
        builtin: false,
        created_at: now,
        updated_at: now,
      };
      const index = { exact: keys.roleName(spec.name), folded: keys.roleFoldedName(spec.name) };
      await insertNamed(state, 'a role', keys.role(record.id), record, index);
      await event(ctx, 'role.created', record);
      return record;
    },

    async replace(ctx: RequestContext, idOrName: string, spec: RoleSpec): Promise<RoleRecord> {
      checkKubeKinds(spec);
      checkMcpSchemas(spec);
      const item = findItem(idOrName);
      const old = unlessChanged(ctx, item, `role ${item.value.name}`).value;
      if (old.builtin)
        throw conflict(`${old.name} is a built-in role and cannot be changed; create a new role instead`);
      if (spec.name !== old.name && holders(old.name).length > 0) {
        throw conflict(`role ${old.name} is assigned; it cannot be renamed while in use`);
      }
      // What the change adds for every holder: new allows, and whatever a dropped deny stops denying.
      await deps.covering.require(
        ctx,
        { roles: wideningOf([old], [spec]) },
        { kind: 'role', id: old.id, name: old.name },
        `change role ${old.name}`,
      );
      const record: RoleRecord = {
        ...spec,
        id: old.id,
        builtin: false,
        created_at: old.created_at,
        updated_at: isoTime(clock()),
      };
      const indexOf = (name: string) => ({ exact: keys.roleName(name), folded: keys.roleFoldedName(name) });
      await translateConflicts(
        () =>
          state.replace(
            item.key,
            item.revision,
            record,
            renameIndexKeys(state, item.key, indexOf(old.name), indexOf(spec.name)),
          ),
        nameConflicts(state, 'a role', spec.name, indexOf(spec.name)),
      );
      await event(ctx, 'role.updated', record);
      return record;
    },

    async remove(ctx: RequestContext, idOrName: string): Promise<void> {
      const item = findItem(idOrName);
      unlessChanged(ctx, item, `role ${item.value.name}`);
      const role = item.value;
      if (BUILTIN_ROLE_NAMES.has(role.name) && role.builtin)
        throw conflict(`${role.name} is a built-in role and cannot be deleted`);
      const users = holders(role.name);
      if (users.length > 0) {
        throw conflict(
          `role ${role.name} is assigned to ${users.length} principal(s) (${users.slice(0, 5).join(', ')}); unassign it first`,
        );
      }
      await translateConflicts(() =>
        state.remove(item.key, {
          revision: item.revision,
          indexKeys: [keys.roleName(role.name), ...heldFoldedKey(state, keys.roleFoldedName(role.name), item.key)],
        }),
      );
      await event(ctx, 'role.deleted', role);
    },
  };
}
