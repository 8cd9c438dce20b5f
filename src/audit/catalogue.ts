// Every audit event type Gatehouse writes, with its stable code (GH + number + Info/Warning/Error).
export const EVENT_TYPES = {
  'auth.token.issued': {
    code: 'GH1000I',
    description:
      "An access token was issued for an API key (ended_logins: how many of the key's least recently used logins it ended, over tokens.max_logins_per_key), or for a single sign-on (connector).",
  },
  'auth.token.refreshed': { code: 'GH1001I', description: 'A refresh token was exchanged for a new pair.' },
  'auth.token.revoked': { code: 'GH1002I', description: 'Tokens were revoked.' },
  'auth.refresh.reused': {
    code: 'GH1003W',
    description: 'A refresh token was used twice; its whole family was revoked.',
  },
  'auth.login.failed': { code: 'GH1004W', description: 'A token request or refresh failed.' },
  'auth.login.throttled': { code: 'GH1005W', description: 'Too many failures from one source; refused.' },
  'auth.ssh_certificate.issued': {
    code: 'GH1007I',
    description:
      "An SSH certificate for the SSH proxy was issued to a login (gatehouse login): its key id, the key's fingerprint, valid_before.",
  },
  'auth.token.exchanged': {
    code: 'GH1006I',
    description: 'An agent exchanged a user token and its own for a token acting for the user (RFC 8693).',
  },
  'auth.sso.login': {
    code: 'GH1030I',
    description:
      'A person signed in through a single sign-on connector (connector, subject, the roles the claims mapped to).',
  },
  'auth.sso.failed': {
    code: 'GH1031W',
    description:
      'A single sign-on was refused (reason: state_mismatch, bad_token, provider_error, no_role, disabled, name_taken, no_username, user_suspended, bad_code).',
  },
  'auth.connector.created': { code: 'GH1032I', description: 'A single sign-on connector was created.' },
  'auth.connector.updated': { code: 'GH1033I', description: 'A single sign-on connector was replaced.' },
  'auth.connector.deleted': { code: 'GH1034I', description: 'A single sign-on connector was deleted.' },
  // Second factor (src/mfa): GH105x, apart from the sign-in events around them.
  'auth.mfa.registered': {
    code: 'GH1050I',
    description: 'A person registered a security key or passkey (its name and credential id, never key material).',
  },
  'auth.mfa.used': {
    code: 'GH1051I',
    description: 'A console sign-in was completed with a security key, or made with a passkey alone (passwordless).',
  },
  'auth.mfa.failed': {
    code: 'GH1052W',
    description:
      'A security-key step failed: an unknown, used or expired challenge, a bad signature, a counter that went back (a cloned key), or a passkey its roles do not allow alone.',
  },
  'auth.mfa.removed': {
    code: 'GH1053I',
    description:
      'A security key was removed, by its owner, an administrator or `gatehouse admin reset` (`data.by: admin-reset`).',
  },
  'auth.mfa.renamed': { code: 'GH1054I', description: 'A security key was renamed by its owner.' },
  'user.created': { code: 'GH2000I', description: 'A user was created.' },
  'user.deleted': { code: 'GH2001I', description: 'A user was deleted; their keys and tokens were revoked.' },
  'user.updated': { code: 'GH2006I', description: 'A user’s roles or traits were changed.' },
  'user.api_key.created': { code: 'GH2002I', description: 'An API key was created for a user.' },
  'user.api_key.deleted': { code: 'GH2003I', description: 'An API key was deleted and its tokens revoked.' },
  'user.ssh_key.added': { code: 'GH2004I', description: 'An SSH public key was registered for a user.' },
  'user.ssh_key.deleted': { code: 'GH2005I', description: 'An SSH public key was removed from a user.' },
  'role.created': { code: 'GH2100I', description: 'A role was created.' },
  'role.updated': { code: 'GH2101I', description: 'A role was replaced.' },
  'role.deleted': { code: 'GH2102I', description: 'A role was deleted.' },
  'resource.created': { code: 'GH2200I', description: 'A database, server or app was registered.' },
  'resource.deleted': { code: 'GH2201I', description: 'A database, server or app was removed.' },
  'resource.updated': {
    code: 'GH2204I',
    description: 'A database, server or app was changed (description, labels or where it is).',
  },
  'resource.host_key.pinned': {
    code: 'GH2202I',
    description: "A server's SSH host key was pinned on first use by the proxy.",
  },
  'resource.host_key.reset': {
    code: 'GH2203W',
    description: "A server's pinned SSH host key was cleared; the next connection pins the key it presents.",
  },
  'agent.created': { code: 'GH2300I', description: 'An AI agent identity was created.' },
  'agent.credentials.issued': { code: 'GH2301I', description: 'Credentials were issued to an agent.' },
  'agent.updated': { code: 'GH2302I', description: "An agent's name, description, labels, roles or limits changed." },
  'agent.suspended': {
    code: 'GH2303W',
    description: 'An agent was suspended: every token, credential and session it held was ended.',
  },
  'agent.reactivated': { code: 'GH2304I', description: 'A suspended agent was made active again.' },
  'agent.revoked': {
    code: 'GH2305W',
    description: 'An agent was revoked for good: every token, credential and session it held was ended.',
  },
  'agent.deleted': { code: 'GH2306I', description: 'An agent was removed after everything it held was revoked.' },
  'agent.credential.revoked': { code: 'GH2307I', description: 'One agent credential and its tokens were revoked.' },
  'agent.delegation.granted': { code: 'GH2308I', description: 'A user allowed an agent to act for them.' },
  'agent.delegation.revoked': {
    code: 'GH2309I',
    description: "A user withdrew an agent's permission to act for them; its tokens for the user were revoked.",
  },
  'agent.rate_limited': {
    code: 'GH2310W',
    description: 'An agent exceeded its request or credential-issuance limit (recorded at most once a minute).',
  },
  'agent.ssh_key.added': { code: 'GH2311I', description: 'An SSH public key was registered for an agent.' },
  'agent.ssh_key.deleted': { code: 'GH2312I', description: 'An SSH public key was removed from an agent.' },
  'webhook.created': { code: 'GH2400I', description: 'A webhook was created.' },
  'webhook.deleted': { code: 'GH2401I', description: 'A webhook was deleted with its delivery records.' },
  'webhook.disabled': {
    code: 'GH2402W',
    description:
      'A webhook was disabled: its deliveries kept failing (data.reason failures), or its creator may no longer read audit events (creator_lost_rights).',
  },
  'webhook.delivery.failed': {
    code: 'GH2403W',
    description: 'A webhook delivery failed after its last retry.',
  },
  'webhook.updated': {
    code: 'GH2404I',
    description:
      'A webhook was changed (data.changed: url, event_types, description, status); a new URL is recorded by its origin only.',
  },
  'access.denied': { code: 'GH3000W', description: 'An API call was denied by RBAC.' },
  'access.allowed': { code: 'GH3001I', description: 'A connection to a resource was allowed.' },
  'session.start': { code: 'GH4000I', description: 'A session through the proxy started.' },
  'session.end': { code: 'GH4001I', description: 'A session ended.' },
  'session.terminated': { code: 'GH4002W', description: 'A session was ended by an administrator or a kill switch.' },
  'session.rejected': { code: 'GH4003W', description: 'A connection was refused (RBAC, login, or policy).' },
  'session.upstream_failed': {
    code: 'GH4004E',
    description: 'The proxy could not reach or log in to the target server, or its host key changed.',
  },
  'session.command': { code: 'GH4005I', description: 'A command was run (ssh host cmd) in a session.' },
  'session.observed': {
    code: 'GH4008I',
    description: 'Someone started watching a live session (GET /v1/sessions/{id}/stream; read-only).',
  },
  'session.port_forward': {
    code: 'GH4006I',
    description: 'A port forwarding channel was opened through the proxy (a role allowed it).',
  },
  'session.file_transfer': {
    code: 'GH4007I',
    description: 'A file was read or written over sftp: its path and the bytes moved, never its contents.',
  },
  'kube.request': {
    code: 'GH4200I',
    description:
      'A Kubernetes API request through the proxy (principal, cluster, verb, resource, namespace, name, response code, duration); discovery requests are counted, not logged. success: false when the proxy refused it.',
  },
  'kube.kubeconfig.issued': {
    code: 'GH4201I',
    description: 'A kubeconfig with a short-lived token of the caller was issued for a Kubernetes cluster.',
  },
  'db.session.start': {
    code: 'GH4300I',
    description:
      'A database session through the PostgreSQL proxy started (principal, database, db_user, db_name, client address, TLS).',
  },
  'db.query': {
    code: 'GH4301I',
    description:
      'A statement ran in a database session: its text (cut at db.query_max_length), protocol, command tags, rows, duration; error code and message on failure.',
  },
  'db.session.end': {
    code: 'GH4302I',
    description: 'A database session ended (duration, statements, bytes each way, status).',
  },
  'app.session.start': {
    code: 'GH4400I',
    description:
      'An app session started on the web listener (principal, app, how: cookie after a launch, or bearer for a program).',
  },
  'app.request': {
    code: 'GH4401I',
    description:
      'A request through an app session: method, path (query values left out), status, bytes each way, duration. Never bodies, cookies or credentials. success: false when Gatehouse refused it.',
  },
  'app.session.end': {
    code: 'GH4402I',
    description: 'An app session ended (expired, signed out, access lost, terminated; bytes each way).',
  },
  // The MCP gateway (docs/mcp.md): GH450x.
  'mcp.tool.call': {
    code: 'GH4500I',
    description:
      'A tools/call through the MCP gateway: decision (allowed, denied, held), tool, arguments_hash, argument names (the arguments themselves under mcp_record_arguments), reason, duration_ms, result_bytes, on_behalf_of for a delegated agent. success: false when refused or held.',
  },
  'mcp.tools.listed': {
    code: 'GH4501I',
    description: 'A tools/list through the MCP gateway: how many tools were shown and how many hidden by policy.',
  },
  'mcp.resource.read': {
    code: 'GH4506I',
    description:
      'A resources/read, resources/subscribe or completion/complete on a resource through the MCP gateway: method, uri, decision (allowed, denied under mcp_resources), reason, duration_ms, result_bytes. success: false when refused.',
  },
  'mcp.prompt.get': {
    code: 'GH4507I',
    description:
      'A prompts/get or completion/complete on a prompt through the MCP gateway: method, prompt, decision (allowed, denied under mcp_prompts), reason, duration_ms, result_bytes. success: false when refused.',
  },
  'mcp.resources.listed': {
    code: 'GH4508I',
    description:
      'A resources/list or resources/templates/list through the MCP gateway: how many were shown and how many hidden by policy.',
  },
  'mcp.prompts.listed': {
    code: 'GH4509I',
    description: 'A prompts/list through the MCP gateway: how many prompts were shown and how many hidden by policy.',
  },
  'mcp.approval.requested': {
    code: 'GH4502I',
    description: 'A tool call was held for an approval (approval id, tool, call digest, who asks on whose behalf).',
  },
  'mcp.approval.approved': {
    code: 'GH4503I',
    description: 'A held tool call was approved (by whom, for which digest).',
  },
  'mcp.approval.denied': { code: 'GH4504I', description: 'A held tool call was denied.' },
  'mcp.approval.used': { code: 'GH4505I', description: "An approved tool call went through (the approval's one use)." },
  'recording.uploaded': { code: 'GH4100I', description: 'A session recording reached object storage, verified.' },
  'recording.upload_failed': {
    code: 'GH4101E',
    description: 'A recording upload failed; the spool copy is kept and retried.',
  },
  'recording.read': { code: 'GH4102I', description: 'A session recording was downloaded or viewed.' },
  'recording.integrity_failed': {
    code: 'GH4103E',
    description:
      'A recording asked for does not match the sha256 recorded when it was uploaded (changed in the object store); it was not served.',
  },
  'audit.pruned': { code: 'GH3102I', description: 'Events older than audit.retention were deleted.' },
  'audit.exported': { code: 'GH3100I', description: 'Audit events were exported (format=ndjson).' },
  'system.admin_reset': {
    code: 'GH3200W',
    description:
      'Break-glass: `gatehouse admin reset` created or re-enabled an admin user and gave it a new API key (its id, never the secret); `data.removed_mfa_devices` counts the security keys it removed.',
  },
  'cluster.join_token.created': {
    code: 'GH5000I',
    description: 'A join token was made for a new proxy (its id, role, expiry and uses; never the token).',
  },
  'cluster.join_token.used': {
    code: 'GH5001I',
    description: 'A proxy presented a join token and was given an identity of its own (data.instance).',
  },
  'cluster.instance.removed': {
    code: 'GH5002W',
    description: 'A proxy’s identity was removed: its calls are refused, its live sessions ended.',
  },
  'cluster.join_token.refused': {
    code: 'GH5003W',
    description: 'A join was refused: an unknown, expired or used-up join token.',
  },
  'cluster.credential.issued': {
    code: 'GH5004I',
    description:
      'A door was given the upstream credential of one session (data.credential: ssh, db or kube; data.issued: which kinds of secret, never one; data.instance: the proxy), after the access checker allowed it.',
  },
  'cluster.credential.refused': {
    code: 'GH5005W',
    description:
      'A door asked for an upstream credential and was refused (data.reason: not its session, or what the access checker answered).',
  },
} as const;

export type EventType = keyof typeof EVENT_TYPES;
