// Roles every cluster has. They can be assigned but neither changed nor deleted.
import type { RoleSpec } from './types.js';

export const BUILTIN_ROLES: readonly RoleSpec[] = [
  {
    name: 'admin',
    description: 'Everything: every API call, every resource, every login including root.',
    allow: {
      rules: [{ resources: ['*'], verbs: ['*'] }],
      resources: [{ kinds: ['*'], labels: { '*': '*' } }],
      logins: ['root', '{{traits.logins}}'],
      db_users: ['*'],
      db_names: ['*'],
      kube_groups: ['system:masters'],
    },
  },
  {
    name: 'editor',
    description: 'Manage users, roles, resources, agents and webhooks; read the audit trail.',
    allow: {
      rules: [
        { resources: ['users', 'roles', 'resources', 'agents', 'webhooks', 'tokens'], verbs: ['*'] },
        { resources: ['events', 'sessions', 'recordings'], verbs: ['list', 'read'] },
      ],
      resources: [{ kinds: ['*'], labels: { '*': '*' } }],
    },
  },
  {
    name: 'auditor',
    description: 'Read audit events, sessions and recordings.',
    allow: {
      rules: [{ resources: ['events', 'sessions', 'recordings'], verbs: ['list', 'read'] }],
    },
  },
  {
    name: 'access',
    description: "See and connect to every resource, as the logins in the user's traits.",
    allow: {
      rules: [
        { resources: ['resources'], verbs: ['list', 'read'] },
        { resources: ['sessions'], verbs: ['list', 'read', 'create'] },
      ],
      resources: [{ kinds: ['*'], labels: { '*': '*' } }],
      logins: ['{{traits.logins}}'],
    },
  },
];

export const BUILTIN_ROLE_NAMES = new Set(BUILTIN_ROLES.map((r) => r.name));
