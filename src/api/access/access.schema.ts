import { Type } from '@sinclair/typebox';
import { ResourceKindSchema } from '../../resources/resource-shapes.js';
import { pathId } from '../schemas.js';
import { UserRef } from '../users/users.schema.js';

const Values = (description: string) => Type.Array(Type.String(), { description });

const AsWhom = {
  logins: Values('Servers: the logins (literal POSIX names)'),
  db_users: Values('Databases: the database users (values or * globs)'),
  db_names: Values('Databases: the database names (values or * globs)'),
  kube_users: Values('Kubernetes clusters: the users the proxy impersonates'),
  kube_groups: Values('Kubernetes clusters: the groups the proxy impersonates'),
};

export const RoleGrant = Type.Object(
  { role: Type.String({ description: 'The role that grants these values' }), ...AsWhom },
  { additionalProperties: false },
);

export const ResourceAccess = Type.Object(
  {
    id: Type.String(),
    kind: ResourceKindSchema,
    name: Type.String(),
    labels: Type.Record(Type.String(), Type.String()),
    address: Type.Optional(Type.String()),
    protocol: Type.Optional(Type.String()),
    uri: Type.Optional(Type.String()),
    public_url: Type.Optional(
      Type.String({ description: 'Apps: where the web listener serves the app (what a browser opens)' }),
    ),
    mcp_url: Type.Optional(
      Type.String({ description: 'MCP apps (protocol mcp): the URL an MCP client uses, on the app host' }),
    ),
    ...AsWhom,
    grants: Type.Array(RoleGrant, {
      description:
        'Per role that selects the resource: as whom it lets the principal connect (a role is an allow unit)',
    }),
  },
  { additionalProperties: false },
);

const Endpoint = Type.Object({ host: Type.String(), port: Type.Integer() }, { additionalProperties: false });

export const EffectiveAccess = Type.Object(
  {
    principal: Type.Object(
      {
        kind: Type.Union([Type.Literal('user'), Type.Literal('agent')]),
        id: Type.String(),
        name: Type.String(),
      },
      { additionalProperties: false },
    ),
    active: Type.Boolean({
      description: 'False when the principal may not act now (suspended, revoked): it reaches nothing',
    }),
    resources: Type.Array(ResourceAccess),
    proxy: Type.Object(
      {
        ssh: Type.Optional(Endpoint),
        postgres: Type.Optional(Endpoint),
        kubernetes: Type.Optional(Type.String({ description: 'The Kubernetes proxy’s URL' })),
      },
      {
        additionalProperties: false,
        description: 'Where people connect (the proxies’ public addresses, when running)',
      },
    ),
  },
  { additionalProperties: false },
);

export const AccessQuery = Type.Object(
  {
    kind: Type.Optional(ResourceKindSchema),
    resource: Type.Optional(
      Type.String({ minLength: 1, maxLength: 80, description: 'Only this resource (id or name)' }),
    ),
  },
  { additionalProperties: false },
);

export const UserAccessParams = Type.Object({ id: UserRef }, { additionalProperties: false });
export const AgentAccessParams = Type.Object({ id: pathId('agent') }, { additionalProperties: false });

const AsWhomChange = Type.Object(AsWhom, { additionalProperties: false });

export const RolePreview = Type.Object(
  {
    role: Type.String({ description: 'The role previewed (by its stored name)' }),
    principals_checked: Type.Integer({
      description: 'Principals the role reaches (holders, and agents of holders) that you may see',
    }),
    principals: Type.Array(
      Type.Object(
        {
          kind: Type.Union([Type.Literal('user'), Type.Literal('agent')]),
          id: Type.String(),
          name: Type.String(),
          changes: Type.Array(
            Type.Object(
              {
                resource: Type.Object(
                  { id: Type.String(), kind: ResourceKindSchema, name: Type.String() },
                  { additionalProperties: false },
                ),
                change: Type.Union([Type.Literal('gains'), Type.Literal('loses'), Type.Literal('changes')], {
                  description: 'gains: newly reached; loses: no longer reached; changes: as whom changes',
                }),
                gained: AsWhomChange,
                lost: AsWhomChange,
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Only principals whose access would change, and only resources you may see' },
    ),
    truncated: Type.Boolean({ description: 'More principals hold the role than one preview walks (500)' }),
  },
  { additionalProperties: false },
);
