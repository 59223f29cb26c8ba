import { expect, test } from '@playwright/test';
import { signIn, snapshot } from './console';

// The confirmation link goes by e-mail, which this service (npm start, no SMTP_URL) keeps in its local
// outbox, sealed: a browser test cannot follow it without a way to read that outbox. Confirming, and
// approving or rejecting a confirmed request with its mails, are covered against a real SMTP server in
// test/api/access-requests.test.ts; here: the public page, the confirmation page's refusal, and the
// operators' list.

test('a visitor asks for sandbox access: validated as typed, then told to check their inbox', async ({ page }) => {
  await page.goto('/access');
  await expect(page.getByRole('heading', { name: 'Request sandbox access' })).toBeVisible();
  await snapshot(page, 'access-empty', test.info());

  const email = page.getByLabel('Work e-mail');
  await email.fill('not-an-address');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#contact_email-error')).toHaveText('not an e-mail address');
  await page.getByRole('button', { name: 'Request access' }).click();
  await expect(page.getByLabel('Company')).toHaveAttribute('aria-invalid', 'true');
  await snapshot(page, 'access-field-error', test.info());

  await page.getByLabel('Company').fill(`E2E Couriers ${Date.now()}`);
  await page.getByLabel('Your name').fill('Grace Hopper');
  await email.fill('grace@couriers.example');
  await expect(email).not.toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Website (optional)').fill('https://couriers.example');
  await page.getByLabel('Expected orders a month (optional)').fill('800');
  await page.getByLabel('What will you use the API for?').fill('Evening grocery deliveries in two cities.');
  await page.getByRole('button', { name: 'Request access' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();
  await expect(page.getByRole('status')).toContainText('confirmation link');
  await snapshot(page, 'access-submitted', test.info());
});

test('a confirmation link confirms nothing until its button is pressed, and an unknown one says so', async ({ page }) => {
  await page.goto('/access/confirm/not-a-real-token');
  const button = page.getByRole('button', { name: 'Confirm my e-mail address' });
  await expect(button).toBeVisible();
  await button.click();
  await expect(page.getByRole('main').getByRole('alert')).toContainText('This confirmation link is not valid');
});

test('operators see confirmed access requests by status; an unconfirmed one is not among them', async ({ page }) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Access requests' }).click();
  await expect(page.getByRole('heading', { name: 'Access requests', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: 'Access requests: new' });
  await expect(table).toBeVisible();
  await expect(table).not.toContainText('E2E Couriers');
  await snapshot(page, 'access-requests', test.info());
  await page.getByLabel('Status').selectOption('approved');
  await expect(page.getByRole('table', { name: 'Access requests: approved' })).toBeVisible();
});
