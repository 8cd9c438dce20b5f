// The shapes of sessions, tickets and recordings as the API takes and answers them.
import { type Static, Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { Timestamp } from '../../lib/shapes.js';
import { listQuery } from '../schemas.js';

export const Status = Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('terminated')]);
export const RecordingState = Type.Union(
  ['recording', 'pending', 'uploaded', 'upload_failed', 'none', 'unknown'].map((s) => Type.Literal(s)),
  {
    description:
      'none: nothing recorded as a cast (sftp sessions are recorded as file_transfer events; kubectl port-forward carries application bytes, not a terminal, and is not recorded)',
  },
);
const SessionType = Type.Union(
  [
    Type.Literal('shell'),
    Type.Literal('exec'),
    Type.Literal('subsystem'),
    Type.Literal('sql'),
    Type.Literal('port_forward'),
    Type.Literal('app'),
  ],
  {
    description:
      'sql: a database session (kind db); port_forward: kubectl port-forward (kind kube, not recorded); app: an app session (kind app, not recorded)',
  },
);
export const Ref = (kind: string) =>
  Type.Object({ kind: Type.String({ description: kind }), id: Type.String(), name: Type.String() });

export const Session = Type.Object(
  {
    id: Type.String({ pattern: idPattern('session') }),
    kind: Type.Union([Type.Literal('ssh'), Type.Literal('kube'), Type.Literal('db'), Type.Literal('app')]),
    type: SessionType,
    principal: Ref('user | agent'),
    on_behalf_of: Type.Optional(Ref('user: the user a delegated agent acted for')),
    resource: Ref('server | kube_cluster | database | app'),
    login: Type.String({ description: 'SSH: the login; db: the database user' }),
    db_name: Type.Optional(Type.String({ description: 'db: the database name opened' })),
    command: Type.Optional(Type.String({ description: 'The exec command, or the subsystem (sftp)' })),
    remote_addr: Type.String(),
    status: Status,
    started_at: Timestamp,
    ended_at: Type.Union([Timestamp, Type.Null()]),
    bytes_in: Type.Integer({ description: 'Bytes from the user to the server' }),
    bytes_out: Type.Integer({ description: 'Bytes from the server to the user (stdout and stderr)' }),
    exit_code: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    end_reason: Type.Optional(Type.String()),
    recording: Type.Object({
      status: RecordingState,
      truncated: Type.Optional(Type.Boolean()),
      size: Type.Optional(Type.Integer({ description: 'Bytes stored (gzip)' })),
      attempts: Type.Optional(Type.Integer()),
      last_error: Type.Optional(Type.String()),
    }),
  },
  { additionalProperties: false },
);
export type SessionView = Static<typeof Session>;

export const TerminatedSession = Type.Object(
  {
    ...Session.properties,
    confirmed_ended: Type.Boolean({
      description:
        'Whether the instance holding the session confirmed, within 3 s, that it ended it. false: it is marked ' +
        'terminated and its holder ends it when it sees that (e.g. after a Redis outage), or the holder is gone',
    }),
  },
  { additionalProperties: false },
);

export const SessionQuery = listQuery({
  status: Type.Optional(Status),
  principal: Type.Optional(Type.String({ maxLength: 80, description: 'user_… or agent_… id, or a name' })),
  server: Type.Optional(Type.String({ maxLength: 80, description: 'srv_… id or server name' })),
  login: Type.Optional(Type.String({ maxLength: 64 })),
  type: Type.Optional(SessionType),
  command: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Text the session’s command contains, case-insensitive: the command line of `ssh host cmd` or the subsystem (sftp); commands typed into a shell are not indexed',
    }),
  ),
  text: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 200,
      description:
        'Text the session’s recording contains, case-insensitive: what the server printed (and input, where a role records it), without escape sequences; indexed when the recording closes',
    }),
  ),
});
export const SessionParams = Type.Object(
  { id: Type.String({ pattern: idPattern('session'), maxLength: 40 }) },
  { additionalProperties: false },
);
export const RecordingQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('asciicast'), Type.Literal('text')], {
        description: 'asciicast (default, application/x-asciicast) or text (plain, escape sequences removed)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const TicketRequest = Type.Object(
  {
    server: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'SSH: srv_… id or server name' })),
    login: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9._][A-Za-z0-9._-]*$',
        description: 'SSH: the login',
      }),
    ),
    database: Type.Optional(
      Type.String({ minLength: 1, maxLength: 80, description: 'PostgreSQL: db_… id or database resource name' }),
    ),
    db_user: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'PostgreSQL: the database user' })),
    db_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 63, description: 'PostgreSQL: the database to open' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Either server and login (SSH), or database, db_user and db_name (PostgreSQL)',
  },
);
export const Ticket = Type.Object(
  {
    ticket: Type.String({
      description: 'One-time password for the SSH or PostgreSQL proxy, valid 60 s (shown once)',
    }),
    expires_at: Timestamp,
    expires_in: Type.Integer(),
    login: Type.Optional(Type.String({ description: 'SSH: the login' })),
    server: Type.Optional(Ref('server')),
    database: Type.Optional(Ref('database')),
    db_user: Type.Optional(Type.String()),
    db_name: Type.Optional(Type.String()),
    proxy: Type.Object({ host: Type.String(), port: Type.Integer() }),
    ssh_username: Type.Optional(Type.String({ description: '<login>@<server>, the user name to give ssh' })),
    ssh_command: Type.Optional(
      Type.String({ description: 'A command line that connects (type the ticket as the password)' }),
    ),
    psql_conninfo: Type.Optional(
      Type.String({ description: 'A libpq connection string for psql (give the ticket as the password)' }),
    ),
  },
  { additionalProperties: false },
);
