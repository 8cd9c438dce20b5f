// Who is calling the auth tier from the proxy tier: a joined proxy, by the credential it carries (its
// identity comes from the credential, checked against the registry on every call, so a removed one is
// refused at once), or — only where cluster.allow_shared_token says so — a holder of the deprecated
// shared cluster token, whose instance is whatever it announces. The instance a call announces
// (X-Gatehouse-Instance: the process, `<identity>-<8 hex>`) must belong to the credential's identity.
import { timingSafeEqual } from 'node:crypto';
import { GatehouseError } from '../lib/errors.js';
import { CLUSTER_TOKEN_HEADER, INSTANCE_HEADER, PROXY_CREDENTIAL_HEADER } from '../net/auth-client.js';
import { INSTANCE_ID } from './announced-instance.js';
import { ownedBy } from './proxy-identities.js';

export type Peer =
  /** A joined proxy: the verified identity, and the process instance of it the call announced. */
  | { identity: string; instance?: string }
  /** The shared token (deprecated): the instance is self-declared. */
  | { identity?: undefined; instance?: string };

type Headers = Record<string, string | string[] | undefined>;

/** The peer a request comes from, or the 401 to answer; undefined when it presents nothing of ours. */
export type PeerCheck = (headers: Headers) => Promise<Peer | GatehouseError | undefined>;

/** The peer a request comes from; a 401 for a request that presents nothing of ours, or a refused credential. */
export async function requirePeer(peers: PeerCheck, headers: Headers): Promise<Peer> {
  const peer = await peers(headers);
  if (peer instanceof Error) throw peer;
  if (peer === undefined)
    throw new GatehouseError('unauthenticated', 'this endpoint is for the cluster’s proxies: present your credential');
  return peer;
}

/** Constant-time comparison of the token a peer presented with ours (lengths leak, values do not). */
export function clusterTokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const one = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);
const refused = (detail: string) => new GatehouseError('unauthenticated', detail);

export function createPeerCheck(deps: {
  identityOf(credential: string): Promise<string | undefined>;
  /** The shared token, when cluster.allow_shared_token lets it in. */
  sharedToken?: string;
}): PeerCheck {
  return async (headers) => {
    const credential = headers[PROXY_CREDENTIAL_HEADER];
    const token = headers[CLUSTER_TOKEN_HEADER];
    const announced = headers[INSTANCE_HEADER];
    if (announced !== undefined && (typeof announced !== 'string' || !INSTANCE_ID.test(announced)))
      return new GatehouseError('invalid_request', `${INSTANCE_HEADER} is one instance id`);
    if (credential !== undefined) {
      const identity = await deps.identityOf(one(credential) ?? '');
      if (identity === undefined)
        return refused('the proxy credential is not valid, expired, or its identity was removed');
      if (announced !== undefined && !ownedBy(identity, announced))
        return refused(`${INSTANCE_HEADER} ${announced} is not an instance of the credential’s identity ${identity}`);
      return announced === undefined ? { identity } : { identity, instance: announced };
    }
    if (token !== undefined) {
      if (deps.sharedToken === undefined)
        return refused(
          'the shared cluster token is refused here: join proxies with a join token (or set cluster.allow_shared_token on the auth tier, deprecated)',
        );
      if (!clusterTokenMatches(one(token), deps.sharedToken)) return refused('the cluster token is not this cluster’s');
      return announced === undefined ? {} : { instance: announced };
    }
    return undefined;
  };
}
