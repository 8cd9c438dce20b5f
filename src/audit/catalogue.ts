// Every audit event type Gatehouse writes, with its stable code (GH + number + Info/Warning/Error).
export const EVENT_TYPES = {
  'auth.token.issued': { code: 'GH1000I', description: 'An access token was issued for an API key.' },
  'auth.token.refreshed': { code: 'GH1001I', description: 'A refresh token was exchanged for a new pair.' },
  'auth.token.revoked': { code: 'GH1002I', description: 'Tokens were revoked.' },
  'auth.refresh.reused': {
    code: 'GH1003W',
    description: 'A refresh token was used twice; its whole family was revoked.',
  },
  'auth.login.failed': { code: 'GH1004W', description: 'A token request or refresh failed.' },
  'auth.login.throttled': { code: 'GH1005W', description: 'Too many failures from one source; refused.' },
  'user.created': { code: 'GH2000I', description: 'A user was created.' },
  'user.deleted': { code: 'GH2001I', description: 'A user was deleted; their keys and tokens were revoked.' },
  'user.api_key.created': { code: 'GH2002I', description: 'An API key was created for a user.' },
  'user.api_key.deleted': { code: 'GH2003I', description: 'An API key was deleted and its tokens revoked.' },
  'role.created': { code: 'GH2100I', description: 'A role was created.' },
  'role.updated': { code: 'GH2101I', description: 'A role was replaced.' },
  'role.deleted': { code: 'GH2102I', description: 'A role was deleted.' },
  'resource.created': { code: 'GH2200I', description: 'A database, server or app was registered.' },
  'resource.deleted': { code: 'GH2201I', description: 'A database, server or app was removed.' },
  'agent.created': { code: 'GH2300I', description: 'An AI agent identity was created.' },
  'agent.credentials.issued': { code: 'GH2301I', description: 'Credentials were issued to an agent.' },
  'webhook.created': { code: 'GH2400I', description: 'A webhook was created.' },
  'webhook.deleted': { code: 'GH2401I', description: 'A webhook was deleted with its delivery records.' },
  'webhook.disabled': {
    code: 'GH2402W',
    description: 'A webhook was disabled because its deliveries kept failing.',
  },
  'webhook.delivery.failed': {
    code: 'GH2403W',
    description: 'A webhook delivery failed after its last retry.',
  },
  'access.denied': { code: 'GH3000W', description: 'An API call was denied by RBAC.' },
  'access.allowed': { code: 'GH3001I', description: 'A connection to a resource was allowed.' },
  'session.start': { code: 'GH4000I', description: 'A session through the proxy started.' },
  'session.end': { code: 'GH4001I', description: 'A session ended.' },
  'session.terminated': { code: 'GH4002W', description: 'A session was ended by an administrator or a kill switch.' },
  'session.rejected': { code: 'GH4003W', description: 'A connection was refused (RBAC, login, or policy).' },
  'recording.uploaded': { code: 'GH4100I', description: 'A session recording reached object storage, verified.' },
  'recording.upload_failed': {
    code: 'GH4101E',
    description: 'A recording upload failed; the spool copy is kept and retried.',
  },
  'audit.pruned': { code: 'GH3102I', description: 'Events older than audit.retention were deleted.' },
  'audit.exported': { code: 'GH3100I', description: 'Audit events were exported (format=ndjson).' },
} as const;

export type EventType = keyof typeof EVENT_TYPES;
