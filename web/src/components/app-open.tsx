// How the signed-in person opens one app she reaches, from her effective access (GET
// /v1/users/me/access): a web app by its public_url, in a new tab, where the app door signs her in;
// an MCP server by its endpoint URL and the CLI's stdio bridge, since a browser has nothing to open
// there. The API lists only apps the one access checker admits her to, so nothing here decides.
import { Command, type MyResourceAccess } from './connect-common';
import { Empty } from './status';

type AppAccess = Pick<MyResourceAccess, 'name' | 'protocol' | 'public_url' | 'mcp_url'>;

export function AppOpen({ access }: { access: AppAccess }) {
  if (access.protocol === 'mcp') {
    if (!access.mcp_url) return <Empty>{access.name} is not served through Gatehouse yet.</Empty>;
    return (
      <>
        <p>An MCP server: point an MCP client at its endpoint with your Gatehouse token, or bridge stdio:</p>
        <Command label={`MCP endpoint of ${access.name}`} text={access.mcp_url} />
        <Command label={`gatehouse command for ${access.name}`} text={`gatehouse mcp connect ${access.name}`} />
      </>
    );
  }
  if (!access.public_url) return <Empty>{access.name} is not served through Gatehouse yet.</Empty>;
  return (
    <a className="button" href={access.public_url} target="_blank" rel="noreferrer">
      Launch {access.name}
    </a>
  );
}
