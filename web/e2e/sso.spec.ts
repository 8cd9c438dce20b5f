// Single sign-on in a real browser: the sign-in page's "Sign in with …" button, a real OpenID
// Provider on loopback (oidc-provider, test/helpers/oidc-provider.ts) whose accounts carry groups,
// and the console back signed in with the roles those groups map to. Refusals a person sees: no role
// mapped, a tampered state or nonce, a turned-off connector. Then the "done when": a person
// signed in through the provider registers a passkey (Chromium's virtual authenticator) and is asked
// for it once a role requires it. The console is opened at http://localhost:<port>, its public URL
// (the redirect URI registered at the provider, and the WebAuthn relying party).
import type { Page } from '@playwright/test';
import { startOidcProvider, type TestProvider } from '../../test/helpers/oidc-provider.js';
import { adminApi, env, expect, screenshot, test, virtualAuthenticator } from './fixtures.js';

const web = () => env.web().replace('://127.0.0.1:', '://localhost:');
const CONNECTOR = 'e2e-idp';
const ROLES = ['e2e-sso-dev', 'e2e-sso-team'];
const USERS = ['sso-alice', 'sso-mia', 'sso-bob'];
let provider: TestProvider;

async function connectorInput() {
  const current = (await adminApi('GET', `/v1/auth/connectors/${CONNECTOR}`)).json;
  const { id: _i, redirect_uri: _r, created_at: _c, updated_at: _u, ...input } = current;
  return input;
}

test.beforeAll(async () => {
  for (const name of ROLES) {
    const role = await adminApi('POST', '/v1/roles', {
      name,
      allow: { rules: [{ resources: ['resources'], verbs: ['list', 'read'] }] },
    });
    expect(role.status, role.text).toBe(201);
  }
  provider = await startOidcProvider({
    redirectUris: [`${web()}/webapi/sso/callback`],
    accounts: {
      'sso-alice': { groups: ['platform-eng', 'everyone'] },
      'sso-bob': { groups: ['sales'] },
      'sso-mia': { groups: ['team-payments'] },
    },
  });
  const created = await adminApi('POST', '/v1/auth/connectors', {
    kind: 'oidc',
    name: CONNECTOR,
    display_name: 'E2E IdP',
    issuer: provider.issuer,
    client_id: provider.clientId,
    client_secret: provider.clientSecret,
    scopes: ['openid', 'profile', 'groups'],
    claims_to_roles: [
      { claim: 'groups', value: 'platform-*', roles: ['e2e-sso-dev'] },
      { claim: 'groups', value: 'team-*', roles: ['e2e-sso-team'] },
    ],
  });
  expect(created.status, created.text).toBe(201);
  expect(created.json.redirect_uri).toBe(`${web()}/webapi/sso/callback`);
});

test.afterAll(async () => {
  // The browser specs share one Gatehouse: leave it as it was found.
  await adminApi('DELETE', `/v1/auth/connectors/${CONNECTOR}`);
  for (const name of USERS) await adminApi('DELETE', `/v1/users/${name}`);
  for (const name of ROLES) await adminApi('DELETE', `/v1/roles/${name}`);
  await provider?.stop();
});

/** From the sign-in page through the provider's own forms (its login, then its consent, if asked). */
async function signInThrough(page: Page, login: string) {
  await page.goto(`${web()}/login`);
  await page.getByRole('link', { name: 'Sign in with E2E IdP' }).click();
  const loginField = page.locator('input[name="login"]');
  const consent = page.getByRole('button', { name: 'Continue' });
  const back = page.getByText('Signed in as').or(page.getByRole('heading', { name: /Sign-in refused|Use your/ }));
  await expect(loginField.or(consent).or(back)).toBeVisible();
  if (await loginField.isVisible()) {
    await loginField.fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await expect(consent.or(back)).toBeVisible();
  }
  if (await consent.isVisible()) await consent.click();
}

const sessionOf = async (page: Page) =>
  (await page.request.get(`${web()}/webapi/session`, { headers: { 'x-gatehouse-csrf': '1' } })).json();

test('a person signs in through the provider with the roles their groups map to', async ({ page }) => {
  await page.goto(`${web()}/login`);
  await expect(page.getByLabel('API key or access token')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Sign in with E2E IdP' })).toBeVisible();
  await screenshot(page, 'sso-sign-in-page');

  await signInThrough(page, 'sso-alice');
  await expect(page.getByText('Signed in as')).toContainText('sso-alice');
  await expect(page).toHaveURL(/\/resources$/);
  const session = await sessionOf(page);
  expect(session.roles).toEqual(['e2e-sso-dev']);
  const user = (await adminApi('GET', '/v1/users/sso-alice')).json;
  expect(user.auth).toBe(CONNECTOR);
  expect(user.roles).toEqual(['e2e-sso-dev']);
});

test('a person whose groups map to no role is refused with a page that says so, and no user is made', async ({
  page,
}) => {
  await signInThrough(page, 'sso-bob');
  await expect(page.getByRole('heading', { name: 'Sign-in refused' })).toBeVisible();
  await expect(page.locator('#reason')).toContainText('no role of Gatehouse is mapped to them');
  await screenshot(page, 'sso-no-role');
  expect((await adminApi('GET', '/v1/users/sso-bob')).status).toBe(404);
  expect((await page.request.get(`${web()}/webapi/session`, { headers: { 'x-gatehouse-csrf': '1' } })).status()).toBe(
    401,
  );
  await page.getByRole('link', { name: 'Back to the sign-in page' }).click();
  await expect(page.getByLabel('API key or access token')).toBeVisible();
});

/**
 * Rewrites requests whose URL matches on their way out, redirects included (the DevTools protocol's
 * Fetch domain: page.route sees only the first request of a redirect chain, and both of these are
 * redirects — the provider's back to Gatehouse, Gatehouse's to the provider).
 */
async function rewrite(page: Page, urlPattern: string, change: (url: URL) => void) {
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Fetch.requestPaused', (event) => {
    const url = new URL(event.request.url);
    change(url);
    void cdp.send('Fetch.continueRequest', { requestId: event.requestId, url: url.href });
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern, requestStage: 'Request' }] });
}

test('a tampered state is refused', async ({ page }) => {
  await rewrite(page, '*/webapi/sso/callback?*', (url) =>
    url.searchParams.set('state', `${url.searchParams.get('state')}-tampered`),
  );
  await signInThrough(page, 'sso-alice');
  await expect(page.getByRole('heading', { name: 'Sign-in refused' })).toBeVisible();
  await expect(page.locator('#reason')).toContainText('unknown or has expired');
  await screenshot(page, 'sso-state-tampered');
  expect((await page.request.get(`${web()}/webapi/session`, { headers: { 'x-gatehouse-csrf': '1' } })).status()).toBe(
    401,
  );
});

test('a tampered nonce is refused: the ID token carries one Gatehouse did not make', async ({ page }) => {
  await rewrite(page, `${provider.issuer}/auth?*`, (url) => url.searchParams.set('nonce', 'a-nonce-never-made'));
  await signInThrough(page, 'sso-alice');
  await expect(page.getByRole('heading', { name: 'Sign-in refused' })).toBeVisible();
  await expect(page.locator('#reason')).toContainText('did not pass verification');
  expect((await page.request.get(`${web()}/webapi/session`, { headers: { 'x-gatehouse-csrf': '1' } })).status()).toBe(
    401,
  );
  const failed = (await adminApi('GET', '/v1/events?type=auth.sso.failed&per_page=20')).json.events;
  const reasons = failed.map((e: { data: { reason: string } }) => e.data.reason);
  expect(reasons).toContain('state_mismatch');
  expect(reasons).toContain('bad_token');
  expect(JSON.stringify(failed)).not.toContain('a-nonce-never-made');
});

test('a turned-off connector is not offered, and its sign-in URL is refused', async ({ page }) => {
  const input = await connectorInput();
  expect((await adminApi('PUT', `/v1/auth/connectors/${CONNECTOR}`, { ...input, enabled: false })).status).toBe(200);
  try {
    await page.goto(`${web()}/login`);
    await expect(page.getByLabel('API key or access token')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Sign in with E2E IdP' })).toHaveCount(0);
    await page.goto(`${web()}/webapi/sso/${CONNECTOR}/login`);
    await expect(page.getByRole('heading', { name: 'Sign-in refused' })).toBeVisible();
    await expect(page.locator('#reason')).toContainText('turned off');
  } finally {
    await adminApi('PUT', `/v1/auth/connectors/${CONNECTOR}`, { ...input, enabled: true });
  }
  // Control: on again, it is offered again.
  await page.goto(`${web()}/login`);
  await expect(page.getByRole('link', { name: 'Sign in with E2E IdP' })).toBeVisible();
});

test('done when: signed in through the provider, she registers a passkey and is asked for it once a role requires it', async ({
  page,
}) => {
  await virtualAuthenticator(page);

  // No role requires a key yet: the provider is enough.
  await signInThrough(page, 'sso-mia');
  await expect(page.getByText('Signed in as')).toContainText('sso-mia');
  expect((await sessionOf(page)).roles).toEqual(['e2e-sso-team']);

  await page.goto(`${web()}/account`);
  await page.getByLabel('Key name').fill('Laptop passkey');
  await page.getByRole('button', { name: 'Add a security key' }).click();
  await expect(page.getByRole('table', { name: 'Security keys' })).toContainText('Laptop passkey');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();

  // Her team's role now requires a security key.
  const role = (await adminApi('GET', '/v1/roles/e2e-sso-team')).json;
  const updated = await adminApi('PUT', '/v1/roles/e2e-sso-team', {
    name: role.name,
    allow: role.allow,
    options: { ...(role.options ?? {}), require_mfa: true },
  });
  expect(updated.status, updated.text).toBe(200);

  await signInThrough(page, 'sso-mia');
  await expect(page.getByRole('heading', { name: 'Use your security key' })).toBeVisible();
  await screenshot(page, 'sso-second-step');
  // Half signed in: nothing opens yet.
  const refused = await page.request.get(`${web()}/v1/resources`, { headers: { 'x-gatehouse-csrf': '1' } });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).code).toBe('mfa_required');

  await page.getByRole('button', { name: 'Use your security key' }).click();
  await expect(page).toHaveURL(/\/resources$/);
  await expect(page.getByText('Signed in as')).toContainText('sso-mia');
  const mia = (await adminApi('GET', '/v1/users/sso-mia')).json;
  const used = (await adminApi('GET', '/v1/events?type=auth.mfa.used&per_page=20')).json.events.filter(
    (e: { actor: { id?: string } }) => e.actor.id === mia.id,
  );
  expect(used.length).toBeGreaterThanOrEqual(1);
});
