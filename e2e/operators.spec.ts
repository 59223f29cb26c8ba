import { expect, test } from '@playwright/test';
import { signIn, snapshot } from './console';

test('an admin adds a support operator (password generated, shown once), who then sees no Operators page; the admin revokes their session', async ({
  page,
  browser,
}) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Operators' }).click();
  await expect(page.getByRole('heading', { name: 'Operators', level: 1 })).toBeVisible();

  // Validated as typed, before anything is sent.
  await page.getByLabel('E-mail').fill('not-an-address');
  await page.getByRole('button', { name: 'Add operator' }).click();
  await expect(page.getByLabel('E-mail')).toHaveAttribute('aria-invalid', 'true');

  const email = `support-${Date.now()}@example.com`;
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('support');
  await page.getByRole('button', { name: 'Add operator' }).click();
  const notice = page.getByRole('status');
  await expect(notice).toContainText(`Password for ${email}`);
  const password = (await notice.locator('code').textContent())!;
  await expect(page.getByRole('table', { name: /Everyone who can sign in/ })).toContainText(email);
  await snapshot(page, 'operators', test.info());

  // The new operator signs in elsewhere: no Operators link, and the page is absent for them.
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, email, password);
  await expect(theirs.getByLabel('Signed in as')).toHaveText(`${email} (support)`);
  await expect(theirs.getByRole('link', { name: 'Operators' })).toHaveCount(0);
  await theirs.goto('/operators');
  await expect(theirs.getByText('There is no such page for your role.')).toBeVisible();

  // The admin revokes that session (after confirming); the support operator is sent to sign in.
  await page.reload();
  const row = page
    .getByRole('table', { name: /Live sessions/ })
    .getByRole('row')
    .filter({ hasText: email });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke session' }).click();
  await expect(page.getByRole('table', { name: /Live sessions/ })).not.toContainText(email);
  await theirs.goto('/');
  await expect(theirs).toHaveURL(/\/login/);
  await other.close();
});
