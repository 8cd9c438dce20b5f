// The browser's way into an app, as the app-access tests walk it: the app host sends the browser to
// the console's launch page (with a state cookie), the console asks POST /v1/apps/launch for a
// one-time code, and the app host's callback exchanges it for the app-session cookie.
import assert from 'node:assert/strict';
import { appRequest, setCookies } from './app-upstream.js';
import { api } from './gatehouse.js';

export async function launchApp(
  gh: { url: string; webUrl: string },
  token: string,
  host: string,
  appName: string,
  path = '/',
): Promise<{ cookie: string; landing: string }> {
  const first = await appRequest(gh.webUrl, host, path, { headers: { accept: 'text/html' } });
  assert.equal(first.status, 302, first.text);
  const launchPage = new URL(String(first.headers.location));
  assert.equal(launchPage.pathname, `/launch/${appName}`);
  const state = setCookies(first.headers).get('gatehouse_app_state') as string;
  assert.equal(launchPage.searchParams.get('state'), state);
  const launched = await api(gh.url, 'POST', '/v1/apps/launch', {
    token,
    body: { app: appName, path: launchPage.searchParams.get('path'), state },
  });
  assert.equal(launched.status, 200, launched.text);
  const callback = new URL(launched.json.url);
  assert.equal(callback.host, host);
  const back = await appRequest(gh.webUrl, host, callback.pathname + callback.search, {
    headers: { cookie: `gatehouse_app_state=${state}`, accept: 'text/html' },
  });
  assert.equal(back.status, 302, back.text);
  const cookie = setCookies(back.headers).get('gatehouse_app') as string;
  assert.ok(cookie, 'the callback sets the app-session cookie');
  return { cookie: `gatehouse_app=${cookie}`, landing: String(back.headers.location) };
}
