// Renders docs/events.md from the event catalogue (src/audit/catalogue.ts).
import { EVENT_TYPES } from '../src/audit/catalogue.js';

export function renderEventDocs(): string {
  const rows = Object.entries(EVENT_TYPES)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([type, e]) => `| \`${type}\` | ${e.code} | ${e.description} |`);
  return `# Audit events

Generated from \`src/audit/catalogue.ts\` by \`npm run docs\`; a test fails when this file is stale.

Every event has these fields (a public contract):

| Field | Meaning |
|---|---|
| \`id\` | \`evt_…\`, sortable by time |
| \`type\` | one of the types below; filter with \`type=\` (exact, or a prefix such as \`auth.*\`) |
| \`code\` | stable code: \`GH\` + number + \`I\` (info), \`W\` (warning) or \`E\` (error) |
| \`time\` | ISO 8601 UTC |
| \`actor\` | \`{kind: user\\|agent\\|system\\|anonymous, id?, name?}\`: who acted |
| \`target\` | \`{kind, id, name?}\`: what was acted on, when there is one |
| \`session_id\` | the session, for session events |
| \`success\` | \`false\` for failures and denials |
| \`remote_addr\` | the caller's address |
| \`request_id\` | the \`X-Request-Id\` of the API call that caused it |
| \`data\` | type-specific details: ids and the fields that matter, never secrets or whole objects |

| Type | Code | Meaning |
|---|---|---|
${rows.join('\n')}
`;
}
