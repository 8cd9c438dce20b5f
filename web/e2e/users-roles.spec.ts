import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

test('role editor: verbs, collections, kinds and logins are tokens; a verb not offered is refused at its picker, a bad TTL by the API at its field; the fixed role saves', async ({
  page,
}) => {
  await signIn(page, env.adminKey(), '/roles');
  await expect(page.getByRole('table', { name: 'Roles' }).getByRole('link').first()).toBeVisible();
  await screenshot(page, 'roles');
  await page.getByRole('link', { name: 'Create a role' }).click();
  const form = page.getByRole('form', { name: 'Role' });
  await form.getByLabel('Role name').fill('dev-ssh');
  await form.getByLabel('Allow rule 1 collections', { exact: true }).fill('sessions, recordings');
  const verbs = form.getByLabel('Allow rule 1 verbs', { exact: true });
  await verbs.fill('list, fly');
  await verbs.blur();
  // The picker offers the allowed verbs only: 'fly' is refused before anything is sent.
  await expect(verbs).toHaveAttribute('aria-invalid', 'true');
  await expect(verbs).toHaveAccessibleDescription(/fly: not one of list, read, create, update, delete/);
  await verbs.fill('list, read');
  await verbs.blur();
  await expect(form.getByRole('button', { name: 'Remove Allow rule 1 verbs read' })).toBeVisible();
  await expect(verbs).not.toHaveAttribute('aria-invalid', 'true');
  await form.getByRole('button', { name: 'Add allow selector' }).click();
  await form.getByLabel('Allow selector 1 kinds', { exact: true }).fill('server');
  await form.getByLabel('Allow selector 1 labels').fill('env=dev');
  await form.getByLabel('Allow logins', { exact: true }).fill('ubuntu');
  await form.getByLabel('Maximum session length').fill('eight hours');
  await form.getByRole('button', { name: 'Create role' }).click();

  await expect(form.getByLabel('Maximum session length')).toHaveAttribute('aria-invalid', 'true');
  // Positive control: the fields the API did not name are not marked.
  await expect(form.getByLabel('Allow rule 1 collections', { exact: true })).not.toHaveAttribute(
    'aria-invalid',
    'true',
  );
  await expect(form.getByLabel('Role name')).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Not saved: see the fields marked')).toBeVisible();
  await screenshot(page, 'role-editor-errors');

  await form.getByLabel('Maximum session length').fill('8h');
  await form.getByRole('button', { name: 'Create role' }).click();
  await expect(page.getByRole('heading', { name: 'Role dev-ssh' })).toBeVisible();
  await expect(page.getByText('Saved.')).toBeVisible();
  const saved = await adminApi('GET', '/v1/roles/dev-ssh');
  expect(saved.json.allow).toMatchObject({
    rules: [{ resources: ['sessions', 'recordings'], verbs: ['list', 'read'] }],
    resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
    logins: ['ubuntu'],
  });
  expect(saved.json.options.max_session_ttl).toBe('8h');
  await screenshot(page, 'role-editor');

  // A built-in role is shown, not editable.
  await page.goto(`${env.web()}/roles/role_auditor`);
  await expect(page.getByText('Built-in roles can be assigned but not changed.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save role' })).toHaveCount(0);
});

test('users: create with roles and logins, edit the roles, an API key shown once that signs in, then deleted', async ({
  page,
}) => {
  await signIn(page, env.adminKey(), '/users');
  await page.getByRole('button', { name: 'Create a user' }).click();
  const form = page.getByRole('form', { name: 'Create a user' });
  await form.getByLabel('User name').fill('carol');
  await form.getByLabel('Roles').fill('auditor');
  // Logins are tokens, as roles are: "a, b" typed or pasted becomes two chips.
  const createLogins = form.getByRole('combobox', { name: 'Logins' });
  await createLogins.fill('ubuntu, deploy');
  await createLogins.blur();
  await expect(form.getByRole('button', { name: 'Remove Logins ubuntu' })).toBeVisible();
  await expect(form.getByRole('button', { name: 'Remove Logins deploy' })).toBeVisible();
  await expect(createLogins).toHaveValue('');
  await form.getByRole('button', { name: 'Create user' }).click();
  await expect(page.getByRole('heading', { name: 'carol' })).toBeVisible();
  await expect(page.getByText('ubuntu, deploy')).toBeVisible();
  await expect(page.getByText('No API keys.')).toBeVisible();

  // Edit roles: an unknown role is refused at the field; a real one is saved.
  await page.getByRole('button', { name: 'Edit roles and logins' }).click();
  const edit = page.getByRole('form', { name: 'Edit user' });
  await edit.getByRole('combobox', { name: 'Roles' }).fill('no-such-role');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit.getByRole('combobox', { name: 'Roles' })).toHaveAccessibleDescription(/no-such-role/);
  // Roles are picked as tokens: the refused one is removed by its chip, then another is added.
  await edit.getByRole('button', { name: 'Remove Roles no-such-role' }).click();
  await edit.getByRole('combobox', { name: 'Roles' }).fill('access');
  // Her logins come back as chips: one removed by its chip, another added with Enter (not a submit).
  await edit.getByRole('button', { name: 'Remove Logins deploy' }).click();
  const editLogins = edit.getByRole('combobox', { name: 'Logins' });
  await editLogins.fill('admin');
  await editLogins.press('Enter');
  await expect(edit.getByRole('button', { name: 'Remove Logins admin' })).toBeVisible();
  await expect(edit.getByRole('button', { name: 'Remove Logins deploy' })).toHaveCount(0);
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toHaveCount(0);
  await expect(page.getByText('auditor, access')).toBeVisible();
  await expect(page.getByText('ubuntu, admin')).toBeVisible();
  const carol = (await adminApi('GET', '/v1/users?name=carol')).json.users[0];
  expect(carol.roles).toEqual(['auditor', 'access']);
  expect(carol.traits.logins).toEqual(['ubuntu', 'admin']);

  await page.getByLabel('Key name').fill('laptop');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const shown = page.getByRole('region', { name: 'New API key' });
  await expect(shown).toContainText('shown once');
  const key = (await shown.getByTestId('secret').textContent()) as string;
  expect(key).toMatch(/^ghk_/);
  await expect(shown.getByRole('button', { name: 'Copy secret' })).toBeVisible();
  await expect(
    page.getByRole('table', { name: 'API keys' }).getByRole('cell', { name: 'laptop', exact: true }),
  ).toBeVisible();
  await screenshot(page, 'user-api-key');
  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByTestId('secret')).toHaveCount(0);

  // The key works: carol signs in with it and, as an auditor, has no Users page.
  const carolPage = await page.context().browser()?.newPage();
  if (!carolPage) throw new Error('no second page');
  await signIn(carolPage, key, '/audit');
  await expect(carolPage.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  await expect(carolPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' })).toHaveCount(0);
  await carolPage.close();

  await page.getByRole('button', { name: 'Delete key laptop' }).click();
  await page.getByRole('button', { name: 'Delete it' }).click();
  await expect(page.getByText('No API keys.')).toBeVisible();

  await page.goto(`${env.web()}/users?name=carol`);
  await expect(page.getByRole('table', { name: 'Users' }).getByRole('row')).toHaveCount(2);
  await screenshot(page, 'users');
  await page.getByRole('link', { name: 'carol' }).click();
  await page.getByRole('button', { name: 'Delete user' }).click();
  await page.getByRole('button', { name: 'Delete carol' }).click();
  await expect(page).toHaveURL(/\/users$/);
  expect((await adminApi('GET', '/v1/users?name=carol')).json.users).toHaveLength(0);
});

test('users: an editor cannot hand out admin (403 with the reason); the admin can (control)', async ({ page }) => {
  const editor = await userWithRoles('ed', ['editor']);
  for (const [key, outcome] of [
    [editor.key, 'refused'],
    [env.adminKey(), 'created'],
  ] as const) {
    await signIn(page, key, '/users');
    await page.getByRole('button', { name: 'Create a user' }).click();
    const form = page.getByRole('form', { name: 'Create a user' });
    await form.getByLabel('User name').fill(`root-${outcome}`);
    await form.getByLabel('Roles').fill('admin');
    await form.getByRole('button', { name: 'Create user' }).click();
    if (outcome === 'refused') {
      await expect(form.getByRole('alert')).toContainText('Not created');
      await expect(form.getByRole('alert')).toContainText('you cannot');
      await screenshot(page, 'users-forbidden');
      await page.getByRole('button', { name: 'Sign out' }).click();
    } else {
      await expect(page.getByRole('heading', { name: 'root-created' })).toBeVisible();
    }
  }
});

test('role editor: the YAML view shows the role as the API has it, and a change saved there round-trips', async ({
  page,
}) => {
  const created = await adminApi('POST', '/v1/roles', {
    name: 'yaml-role',
    description: 'before',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['ubuntu'] },
  });
  expect(created.status, created.text).toBe(201);
  await signIn(page, env.adminKey(), `/roles/${created.json.id}`);
  const yaml = page.getByLabel('Role YAML', { exact: true });
  await expect(yaml).toHaveValue(/name: yaml-role/);
  await expect(yaml).toHaveValue(/logins:\n\s+- ubuntu/);
  const text = await yaml.inputValue();
  await yaml.fill(
    text.replace('description: before', 'description: after').replace('- ubuntu', '- ubuntu\n    - deploy'),
  );
  await page.getByRole('button', { name: 'Save YAML' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  const saved = (await adminApi('GET', '/v1/roles/yaml-role')).json;
  expect(saved.description).toBe('after');
  expect(saved.allow.logins).toEqual(['ubuntu', 'deploy']);
  // The form beside it shows the saved role too.
  await expect(page.getByLabel('Description', { exact: true })).toHaveValue('after');
  // Not YAML: refused before anything is sent.
  await yaml.fill('name: [unclosed');
  await page.getByRole('button', { name: 'Save YAML' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'not YAML' })).toBeVisible();
});

test('role editor: a save names the version it was opened on; someone else’s change meanwhile is not overwritten', async ({
  page,
}) => {
  const created = await adminApi('POST', '/v1/roles', { name: 'etag-role', description: 'first', allow: {} });
  expect(created.status, created.text).toBe(201);
  await signIn(page, env.adminKey(), `/roles/${created.json.id}`);
  const form = page.getByRole('form', { name: 'Role' });
  const description = form.getByLabel('Description', { exact: true });
  await expect(description).toHaveValue('first');

  // Positive control: two saves in a row from the same page both land (each names the version the
  // one before it made).
  await description.fill('second');
  await form.getByRole('button', { name: 'Save role' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await description.fill('third');
  await form.getByRole('button', { name: 'Save role' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect.poll(async () => (await adminApi('GET', '/v1/roles/etag-role')).json.description).toBe('third');

  // Someone else changes the role while the page is open: this page's save is refused, theirs stands.
  const theirs = (await adminApi('GET', '/v1/roles/etag-role')).json;
  const put = await adminApi('PUT', `/v1/roles/${created.json.id}`, {
    name: 'etag-role',
    description: 'by someone else',
    allow: theirs.allow,
  });
  expect(put.status, put.text).toBe(200);
  await description.fill('mine');
  await form.getByRole('button', { name: 'Save role' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Someone changed this since you opened it' })).toBeVisible();
  expect((await adminApi('GET', '/v1/roles/etag-role')).json.description).toBe('by someone else');
  await screenshot(page, 'role-editor-conflict');

  // Reloaded, the page shows their change and a save lands.
  await page.reload();
  await expect(description).toHaveValue('by someone else');
  await description.fill('mine, after reading theirs');
  await form.getByRole('button', { name: 'Save role' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  expect((await adminApi('GET', '/v1/roles/etag-role')).json.description).toBe('mine, after reading theirs');
});
