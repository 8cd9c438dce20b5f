// Where the web listener is reached from outside: read by the listeners, the apps' addressing and the
// break-glass reset alike, so it lives with the configuration rather than in one door.
import type { Config } from './schema.js';

/** web_public_url, or the listener's own address as http(s)://localhost:<port> (browsers resolve *.localhost to loopback). */
export function webPublicUrl(config: Pick<Config, 'web_public_url'>, scheme: 'http' | 'https', port: number): string {
  return config.web_public_url ?? `${scheme}://localhost:${port}`;
}
