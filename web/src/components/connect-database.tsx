// Connect to a database: the database users and names the person's roles pair there (a role is the
// allow unit, so the names offered follow the user chosen), a one-time ticket for psql shown once,
// and the gatehouse client's local tunnel.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { Command, type Endpoints, type MyResourceAccess } from './connect-common';
import { SelectField } from './field';
import { Empty, ProblemView } from './status';

export function ConnectDatabase({ access, proxy }: { access: MyResourceAccess; proxy: Endpoints }) {
  const [dbUser, setDbUser] = useState(access.db_users[0] ?? '');
  const names = [...new Set(access.grants.filter((g) => g.db_users.includes(dbUser)).flatMap((g) => g.db_names))];
  const [chosenName, setDbName] = useState(names[0] ?? '');
  const dbName = names.includes(chosenName) ? chosenName : (names[0] ?? '');
  const ticket = useMutation({
    mutationFn: () => ok(api.POST('/v1/sessions', { body: { database: access.id, db_user: dbUser, db_name: dbName } })),
  });
  if (!access.db_users.length) return <Empty>Your roles let you see {access.name} but name no database user.</Empty>;
  if (!proxy.postgres) return <Empty>No PostgreSQL proxy is running on this Gatehouse.</Empty>;
  return (
    <>
      <div className="row">
        <SelectField
          label="Database user"
          value={dbUser}
          onChange={setDbUser}
          options={access.db_users.map((u) => [u, u])}
        />
        <SelectField label="Database name" value={dbName} onChange={setDbName} options={names.map((n) => [n, n])} />
      </div>
      <p>
        <button type="button" onClick={() => ticket.mutate()} disabled={ticket.isPending}>
          Get a one-time ticket
        </button>
      </p>
      {ticket.isError && <ProblemView error={ticket.error} title="No ticket" />}
      {ticket.data && (
        <section className="shown-once" aria-label="One-time ticket">
          <p>
            Valid {ticket.data.expires_in} s, for one connection; shown once. Give it as the password (psql reads
            PGPASSWORD):
          </p>
          <Command
            label="psql command"
            text={`PGPASSWORD='${ticket.data.ticket}' psql "${ticket.data.psql_conninfo}"`}
          />
          <Command label="conninfo" text={ticket.data.psql_conninfo ?? ''} />
        </section>
      )}
      <p>With the gatehouse client, a local tunnel any driver or GUI can use without a password:</p>
      <Command
        label="gatehouse command"
        text={`gatehouse proxy db ${access.name} --db-user ${dbUser} --db-name ${dbName} --port 15432`}
      />
    </>
  );
}
