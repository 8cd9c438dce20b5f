// Where each app lives on the web listener: `<app name>.<apps domain>`, or its own `public_addr`.
// The apps domain is the host of web_public_url unless apps_domain says otherwise. Apps are told
// apart by the Host header alone (never a path prefix: an app's absolute links and cookies assume it
// owns its origin's root). The console's own host is never an app host, so no app, however named,
// can take the console's address.
import { keys, prefixes } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { ResourceRecord } from '../resources/resource-service.js';

/** An app's name is its host label when it is a DNS label (else it needs a public_addr). */
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export interface AppsOrigin {
  /** http or https, as web_public_url says. */
  scheme: 'http' | 'https';
  /** The console's host (web_public_url's), lower case. */
  consoleHost: string;
  /** `:port` of web_public_url, or '' for the scheme's default port. */
  portSuffix: string;
  /** The domain apps are named under, lower case. */
  domain: string;
}

/** What a request's Host names: an app, a host under the apps domain with no app, or not an app host. */
export type HostMatch = { app: ResourceRecord } | { app: undefined; host: string } | undefined;

/** The host name of a Host header value, lower case, without its port (IPv6 literals keep their brackets). */
export function hostNameOf(host: string | undefined): string {
  const h = (host ?? '').trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, '');
}

/** The origin apps are served under, from web_public_url (or the listener's own) and apps_domain. */
export function appsOriginOf(webPublicUrl: string, appsDomain?: string): AppsOrigin {
  const url = new URL(webPublicUrl);
  const consoleHost = url.hostname.toLowerCase();
  return {
    scheme: url.protocol === 'https:' ? 'https' : 'http',
    consoleHost,
    portSuffix: url.port ? `:${url.port}` : '',
    domain: (appsDomain ?? consoleHost).toLowerCase().replace(/\.$/, ''),
  };
}

export type AppAddressing = ReturnType<typeof createAppAddressing>;

export function createAppAddressing(deps: { state: Pick<StateStore, 'list' | 'get' | 'cache'> }) {
  let origin: AppsOrigin | undefined;
  /** Host → app id, rebuilt after a resource changed (hosts are read on every app request). */
  let byHost: Map<string, string> | undefined;
  deps.state.cache.onChange((key) => {
    if (key.startsWith(prefixes.resources)) byHost = undefined;
  });

  function hostOf(r: Pick<ResourceRecord, 'name' | 'app'>): string | undefined {
    if (!origin) return undefined;
    if (r.app?.public_addr) return r.app.public_addr.toLowerCase();
    const label = r.name.toLowerCase();
    return LABEL.test(label) ? `${label}.${origin.domain}` : undefined;
  }

  /**
   * Names derived from app names first, then public_addr in order of registration: a later app
   * cannot take an earlier app's host by naming it as its public_addr.
   */
  function index(): Map<string, string> {
    const apps = deps.state
      .list<ResourceRecord>(prefixes.resources)
      .map((i) => i.value)
      .filter((r) => r.kind === 'app')
      .sort(
        (a, b) =>
          Number(Boolean(a.app?.public_addr)) - Number(Boolean(b.app?.public_addr)) ||
          (a.created_at < b.created_at ? -1 : 1),
      );
    const map = new Map<string, string>();
    for (const app of apps) {
      const host = hostOf(app);
      if (host && host !== origin?.consoleHost && !map.has(host)) map.set(host, app.id);
    }
    return map;
  }

  return {
    /** Set once the web listener's address is known (its port may be chosen at listen time). */
    publish(webPublicUrl: string, appsDomain?: string): void {
      origin = appsOriginOf(webPublicUrl, appsDomain);
      byHost = undefined;
    },
    get origin(): AppsOrigin | undefined {
      return origin;
    },
    /** Where people reach the console (sign-in, the launch page). */
    consoleUrl(): string | undefined {
      return origin && `${origin.scheme}://${origin.consoleHost}${origin.portSuffix}`;
    },
    /** The app's public URL, or undefined when it has no host (a name that is no DNS label, no public_addr). */
    publicUrlOf(r: Pick<ResourceRecord, 'kind' | 'name' | 'app'>): string | undefined {
      if (r.kind !== 'app' || !origin) return undefined;
      const host = hostOf(r);
      return host && `${origin.scheme}://${host}${origin.portSuffix}/`;
    },
    /** Which app a request's Host names; undefined for the console's host and any other host. */
    match(hostHeader: string | undefined): HostMatch {
      if (!origin) return undefined;
      const host = hostNameOf(hostHeader);
      if (host === origin.consoleHost || host === '') return undefined;
      byHost ??= index();
      const id = byHost.get(host);
      const app = id ? deps.state.get<ResourceRecord>(keys.resource(id))?.value : undefined;
      if (app) return { app };
      return host.endsWith(`.${origin.domain}`) ? { app: undefined, host } : undefined;
    },
  };
}
