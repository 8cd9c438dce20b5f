// A loopback front for the test OpenID Provider that answers as its issuer and passes every request
// through, except two it may rewrite: the token endpoint's ID token (claims changed, re-signed with a
// key of its own) and the JWKS (its own public key added, as a provider's rotated-in key would be).
// So the tests can hand Gatehouse a forged or mis-addressed ID token that only the relying party's
// checks (openid-client) stand against; the provider itself stays the real oidc-provider.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { startOidcProvider, type TestAccount, type TestProvider } from './oidc-provider.js';

/** How the next token answers' ID token is rewritten (until `tamper` is set back to undefined). */
export interface Tamper {
  /** `listed`: the front's key, published in the JWKS; `unlisted`: a stranger's key, under the provider's kid. */
  key: 'listed' | 'unlisted';
  claims?: (claims: JWTPayload) => JWTPayload;
}

export interface FrontedProvider extends TestProvider {
  tamper: Tamper | undefined;
  /** ID tokens the front rewrote (a test asserts its case was really exercised). */
  rewritten: number;
}

const LISTED_KID = 'interposer-listed';

export async function startFrontedProvider(opts: {
  redirectUris: string[];
  accounts: Record<string, TestAccount>;
}): Promise<FrontedProvider> {
  const front: Server = createServer();
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const provider = await startOidcProvider({ ...opts, issuer });
  const upstream = new URL(provider.address);
  const listed = await generateKeyPair('RS256', { extractable: true });
  const unlisted = await generateKeyPair('RS256');
  const listedJwk = { ...(await exportJWK(listed.publicKey)), kid: LISTED_KID, alg: 'RS256', use: 'sig' };

  const self: FrontedProvider = {
    ...provider,
    tamper: undefined,
    rewritten: 0,
    stop: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await provider.stop();
    },
  };

  async function rewriteIdToken(idToken: string, tamper: Tamper): Promise<string> {
    const claims = tamper.claims ? tamper.claims(decodeJwt(idToken)) : decodeJwt(idToken);
    const providerKid = decodeProtectedHeader(idToken).kid;
    const [key, kid] = tamper.key === 'listed' ? [listed.privateKey, LISTED_KID] : [unlisted.privateKey, providerKid];
    self.rewritten++;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) }).sign(key);
  }

  // The body is rewritten for JSON answers of the two paths only; anything else streams through.
  async function rewrite(path: string, body: Buffer): Promise<Buffer> {
    if (path === '/jwks') {
      const jwks = JSON.parse(body.toString()) as { keys: unknown[] };
      return Buffer.from(JSON.stringify({ keys: [...jwks.keys, listedJwk] }));
    }
    const tamper = self.tamper;
    if (path === '/token' && tamper) {
      const answer = JSON.parse(body.toString()) as { id_token?: string };
      if (answer.id_token) answer.id_token = await rewriteIdToken(answer.id_token, tamper);
      return Buffer.from(JSON.stringify(answer));
    }
    return body;
  }

  front.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    const onward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const json = /json/.test(answer.headers['content-type'] ?? '');
        if (!json || (path !== '/jwks' && path !== '/token')) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          rewrite(path, Buffer.concat(chunks)).then(
            (body) => {
              const { 'content-length': _l, 'transfer-encoding': _t, etag: _e, ...headers } = answer.headers;
              res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': body.length });
              res.end(body);
            },
            (error: Error) => {
              res.writeHead(502, { 'content-type': 'text/plain' });
              res.end(`interposer: ${error.message}`);
            },
          );
        });
      },
    );
    onward.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`interposer: ${error.message}`);
    });
    req.pipe(onward);
  });
  return self;
}
