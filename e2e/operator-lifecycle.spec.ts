import { expect, test, type Page } from '@playwright/test';
import { openAccountMenu, signIn, snapshot } from './console';

/** Adds an operator on the Operators page with a password of the test's choosing. */
async function addOperator(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('link', { name: 'Operators' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('support');
  await page.getByLabel('Password (empty: generate one)').fill(password);
  await page.getByRole('button', { name: 'Add operator' }).click();
  await expect(page.getByRole('table', { name: /Everyone who can sign in/ })).toContainText(email);
}

test('an admin disables an operator (their session ends, sign-in refused) and enables them again', async ({ page, browser }) => {
  await signIn(page);
  const email = `leaver-${Date.now()}@example.com`;
  const password = 'a password for the leaver';
  await addOperator(page, email, password);

  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, email, password);

  const row = page
    .getByRole('table', { name: /Everyone who can sign in/ })
    .getByRole('row')
    .filter({ hasText: email });
  await expect(row).toContainText('Active');
  // Asked first: keeping it changes nothing.
  await row.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Keep it' }).click();
  await expect(row).toContainText('Active');
  await row.getByRole('button', { name: 'Disable' }).click();
  await expect(page.getByRole('alertdialog')).toContainText('Every session of theirs ends at once');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Disable operator' }).click();
  await expect(row).toContainText('Disabled');
  await expect(row.getByRole('button', { name: 'Enable' })).toBeVisible();
  await snapshot(page, 'operator-disabled', test.info());

  // Their open console is signed out on its next request, and signing in is refused like a wrong password.
  await theirs.goto('/');
  await expect(theirs).toHaveURL(/\/login/);
  await theirs.getByLabel('E-mail').fill(email);
  await theirs.getByLabel('Password').fill(password);
  await theirs.getByRole('button', { name: 'Sign in' }).click();
  await expect(theirs.locator('form').getByRole('alert')).toHaveText('Wrong e-mail or password.');

  await row.getByRole('button', { name: 'Enable' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Enable operator' }).click();
  await expect(row).toContainText('Active');
  await signIn(theirs, email, password);
  await other.close();

  // The audit log shows both.
  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('table').first()).toContainText('operator.disable');
  await expect(page.getByRole('table').first()).toContainText('operator.enable');
});

test('any operator changes their own password from the header: the other session ends, this one stays', async ({ page, browser }) => {
  await signIn(page);
  const email = `changer-${Date.now()}@example.com`;
  const password = 'the first password here';
  const next = 'the second password here';
  await addOperator(page, email, password);

  const first = await browser.newContext();
  const mine = await first.newPage();
  await signIn(mine, email, password);
  const second = await browser.newContext();
  const elsewhere = await second.newPage();
  await signIn(elsewhere, email, password);

  await openAccountMenu(mine);
  await mine.getByRole('link', { name: 'Change password' }).click();
  await expect(mine.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  const form = mine.getByRole('region', { name: 'Change password' });
  // Checked as typed: too short, and a repeat that does not match.
  await form.getByLabel('Current password').fill(password);
  await form.getByLabel(/^New password/).fill('short');
  await form.getByLabel('Repeat the new password').fill('shorter');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByLabel(/^New password/)).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Repeat the new password')).toHaveAttribute('aria-invalid', 'true');
  // A wrong current password is refused by the server, beside its field.
  await form.getByLabel('Current password').fill('not my password at all');
  await form.getByLabel(/^New password/).fill(next);
  await form.getByLabel('Repeat the new password').fill(next);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByText('The current password is wrong.')).toBeVisible();

  await form.getByLabel('Current password').fill(password);
  await form.getByLabel(/^New password/).fill(next);
  await form.getByLabel('Repeat the new password').fill(next);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(mine.getByRole('status')).toHaveText('Password changed. 1 other session was signed out.');
  await snapshot(mine, 'change-password', test.info());

  // This session goes on; the other one is sent to sign in, where only the new password works.
  await mine.getByRole('link', { name: 'Overview' }).click();
  await expect(mine.getByLabel('Signed in as')).toContainText(email);
  await elsewhere.goto('/');
  await expect(elsewhere).toHaveURL(/\/login/);
  await signIn(elsewhere, email, next);
  await first.close();
  await second.close();
});
