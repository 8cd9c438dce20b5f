// The Connect panel of a resource page, filled for the signed-in person from her effective access
// (GET /v1/users/me/access): the logins, database users or Kubernetes identity her roles give her
// there, and the exact commands to connect through the proxy. Nothing here decides who may
// connect — the proxies do, through the one access checker — it only shows what they will admit.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { AppOpen } from './app-open';
import { Command, type Endpoints, getMyAccess, grantedBy, type MyResourceAccess } from './connect-common';
import { ConnectDatabase } from './connect-database';
import { ConnectKube } from './connect-kube';
import { SelectField } from './field';
import { Empty, Loading, ProblemView } from './status';

export function ConnectPanel({ resource }: { resource: { id: string; kind: string; name: string } }) {
  const query = useQuery({
    queryKey: ['my-access', resource.id],
    queryFn: () => getMyAccess(resource.id),
  });
  return (
    <section className="connect" aria-labelledby="connect-title">
      <h2 id="connect-title">Connect</h2>
      {query.isPending && <Loading what="your access" />}
      {query.isError && <ProblemView error={query.error} />}
      {query.data && <ConnectFor access={query.data.resources[0]} proxy={query.data.proxy} kind={resource.kind} />}
    </section>
  );
}

function ConnectFor({ access, proxy, kind }: { access?: MyResourceAccess; proxy: Endpoints; kind: string }) {
  if (!access) return <Empty>Your roles do not let you connect to this {kind.replace('_', ' ')}.</Empty>;
  if (access.kind === 'server') return <ConnectServer access={access} proxy={proxy} />;
  if (access.kind === 'database') return <ConnectDatabase access={access} proxy={proxy} />;
  if (access.kind === 'kube_cluster') return <ConnectKube access={access} />;
  // An app: her access answers its public_url (or an MCP server's endpoint), as the app door serves it.
  return <AppOpen access={access} />;
}

function ConnectServer({ access, proxy }: { access: MyResourceAccess; proxy: Endpoints }) {
  const [login, setLogin] = useState(access.logins[0] ?? '');
  if (!access.logins.length) return <Empty>Your roles let you see {access.name} but name no login on it.</Empty>;
  if (!proxy.ssh) return <Empty>No SSH proxy is running on this Gatehouse.</Empty>;
  const { host, port } = proxy.ssh;
  const user = `${login}@${access.name}`;
  const ssh = `ssh ${port === 22 ? '' : `-p ${port} `}-l '${user}' ${host}`;
  const config = [`Host ${access.name}`, `  HostName ${host}`, `  Port ${port}`, `  User ${user}`].join('\n');
  return (
    <>
      <SelectField
        label="Login"
        value={login}
        onChange={setLogin}
        options={access.logins.map((l) => [l, `${l} (${grantedBy(access, 'logins', l)})`])}
      />
      <p>
        With an SSH key on your <Link to="/profile">profile</Link> (or an access token typed as the password):
      </p>
      <Command label="ssh command" text={ssh} />
      <p>
        Or add this to <code>~/.ssh/config</code> and run <code>ssh {access.name}</code> (scp, rsync and git too):
      </p>
      <Command label="ssh config" text={config} />
      <p>With the gatehouse client (a short-lived certificate, no key to register):</p>
      <Command label="gatehouse command" text={`gatehouse ssh ${user}`} />
    </>
  );
}
