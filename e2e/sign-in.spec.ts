import { expect, test } from '@playwright/test';
import { openAccountMenu } from './console';

test('the demo admin signs in at /login with what npm start printed; a wrong password is refused beside the form', async ({
  page,
  context,
}) => {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(process.env.E2E_OPERATOR_EMAIL!);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('form').getByRole('alert')).toHaveText('Wrong e-mail or password.');

  await page.getByLabel('Password').fill(process.env.E2E_OPERATOR_PASSWORD!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/$/);
  const session = (await context.cookies()).find((c) => c.name === 'pdp_session');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

  // The session reaches the operator API from this browser.
  const me = await page.evaluate(async () => {
    const res = await fetch('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { operator { email role } } }' }),
    });
    return res.json();
  });
  expect(me.data.me.operator).toEqual({ email: process.env.E2E_OPERATOR_EMAIL, role: 'admin' });
});

test('the console needs a session: / sends a visitor to sign in and back; the header names the operator and role; sign-out ends it', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login\?next=%2F$/);
  await page.getByLabel('E-mail').fill(process.env.E2E_OPERATOR_EMAIL!);
  await page.getByLabel('Password').fill(process.env.E2E_OPERATOR_PASSWORD!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page.getByLabel('Signed in as')).toHaveText(`${process.env.E2E_OPERATOR_EMAIL} (admin)`);
  await page.screenshot({ path: test.info().outputPath('overview.png'), fullPage: true });

  await openAccountMenu(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/login/);
});
