// App sessions, on the door kit's session lifetime (proxy/common/door-session.ts): each is a live
// session of kind `app` in the registry, so it is listed with the others, reached by DELETE
// /v1/sessions/{id} and the kill switch, re-checked by the session guard (revoked login, suspended
// user or agent, lost access), bounded by max_session_ttl, and its start and end audited
// (app.session.start/end). A browser's session is opened when its launch code is redeemed, a
// program's on its bearer token's first request to the app; it ends when its token expires too.
// The instance that opened a session holds it; its end removes the cookie's record, so the cookie
// stops working on every instance at once.
import type { Principal } from '../../auth/principal.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { ResourceRecord } from '../../resources/resource-service.js';
import type { SessionRecord } from '../../sessions/session-registry.js';
import { type DoorKitDeps, type DoorSession, MAX_TTL_REACHED, openDoorSession } from './door-session.js';

export type How = 'cookie' | 'bearer';

export interface AppSessionSpec {
  principal: Principal;
  app: ResourceRecord;
  options: SessionOptions;
  how: How;
  remoteAddr: string;
  /** When it must end at the latest (its token's expiry), epoch ms. */
  endsBy: number;
  /** Runs once it ended, whatever ended it (a cookie session: its record is removed). */
  onEnd?: () => void;
}

export type AppSessions = ReturnType<typeof createAppSessions>;

/**
 * Ends after which a bearer token's next request may not simply open a new session: HTTP has no
 * connection to cut, so without this a program would not notice a person's End (DELETE
 * /v1/sessions/{id}, the console) or its max_session_ttl. An idle end, a shutdown or the guard's
 * end are not among them (the guard's causes refuse the token by themselves). Cookie sessions need
 * no such rule: their end removes the cookie, and the browser must launch again.
 */
const keepsTokenOut = (reason: string | undefined): boolean =>
  reason !== undefined && (reason.startsWith('terminated by ') || `gatehouse: ${reason}` === MAX_TTL_REACHED);

export function createAppSessions(kit: DoorKitDeps) {
  const held = new Map<string, DoorSession>();
  /** A bearer token's session per app: `<token id> <app id>`, opening or open. */
  const bearer = new Map<string, Promise<DoorSession | undefined>>();
  /** Tokens kept out of an app (endedForGood), until they expire. */
  const keptOut = new Map<string, Promise<{ refused: string }>>();

  /** A terminated session of this token at this app that keeps it out (state: every instance sees it). */
  function endedForGood(tokenId: string, appId: string): SessionRecord | undefined {
    return kit.sessions
      .list()
      .find(
        (r) =>
          r.kind === 'app' &&
          r.status === 'terminated' &&
          r.resource.id === appId &&
          r.origin?.token?.id === tokenId &&
          keepsTokenOut(r.end_reason),
      );
  }

  async function open(spec: AppSessionSpec, bearerKey?: string): Promise<DoorSession | undefined> {
    let session: DoorSession | undefined;
    let expiry: NodeJS.Timeout | undefined;
    const startedAt = kit.clock();
    const resource = { kind: 'app' as const, id: spec.app.id, name: spec.app.name };
    session = await openDoorSession(kit, {
      kind: 'app',
      type: 'app',
      principal: spec.principal,
      resource,
      as: { login: '' },
      origin: { remoteAddr: spec.remoteAddr },
      options: spec.options,
      rejection: { app: spec.app.name, how: spec.how },
      startData: { how: spec.how },
      // An HTTP session has no connection of its own to tell or close: the next request finds it gone.
      refuse: () => {},
      close: () => {
        clearTimeout(expiry);
        if (session) held.delete(session.id);
        if (bearerKey) bearer.delete(bearerKey);
        spec.onEnd?.();
        // app.session.end says how long it lasted, as db.session.end does (the first end() wins).
        void session?.end({ data: { duration_ms: kit.clock() - startedAt } });
      },
    });
    if (!session) return undefined;
    held.set(session.id, session);
    const s = session;
    expiry = setTimeout(
      () => s.terminate('gatehouse: session ended: its sign-in expired'),
      Math.max(0, spec.endsBy - kit.clock()),
    );
    expiry.unref();
    return session;
  }

  return {
    /** A browser's session, opened at the callback. */
    openCookieSession: (spec: Omit<AppSessionSpec, 'how'>) => open({ ...spec, how: 'cookie' }),
    /**
     * The session a bearer token's requests to this app belong to (opened on its first request), or
     * why the token may not open one again (a person ended its session, or max_session_ttl did).
     */
    bearerSession(spec: Omit<AppSessionSpec, 'how'>): Promise<DoorSession | { refused: string } | undefined> {
      const key = `${spec.principal.token?.id ?? spec.principal.id} ${spec.app.id}`;
      const out = keptOut.get(key);
      if (out) return out;
      let session = bearer.get(key);
      if (!session) {
        const ended = spec.principal.token ? endedForGood(spec.principal.token.id, spec.app.id) : undefined;
        if (ended) {
          const refused = Promise.resolve({
            refused: `gatehouse: this sign-in's session in ${spec.app.name} was ended (${ended.end_reason}); sign in again`,
          });
          // Kept until the token expires: a program that keeps asking does not scan the records each time.
          keptOut.set(key, refused);
          setTimeout(() => keptOut.delete(key), Math.min(2 ** 31 - 1, Math.max(0, spec.endsBy - kit.clock()))).unref();
          return refused;
        }
        session = open({ ...spec, how: 'bearer' }, key).then((s) => {
          if (!s) bearer.delete(key);
          return s;
        });
        bearer.set(key, session);
      }
      return session;
    },
    /** The session if this instance holds it (requests count their bytes on it). */
    held: (id: string): DoorSession | undefined => held.get(id),
    /** Ends every session held here (shutdown). */
    async close(message: string): Promise<void> {
      const all = [...held.values()];
      for (const s of all) s.terminate(message);
      await Promise.all(all.map((s) => s.end()));
    },
  };
}
