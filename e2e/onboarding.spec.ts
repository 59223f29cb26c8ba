import type { Page } from '@playwright/test';
import { expect, QUOTE, test } from './partner-api';
import { signIn, snapshot } from './console';

// The whole path of the specification's part 5, by clicking, with npm start's local outbox standing in for
// the mail server: a company asks for access, confirms its address from the mail, an operator approves,
// the developer opens the hand-over link, sees the key once and uses it.

/** The link in the newest kept message to `to` with `subject`, read in the console's outbox. */
async function linkInOutbox(page: Page, to: string, subject: string, path: RegExp): Promise<string> {
  await page.goto('/outbox');
  const message = page.getByRole('article', { name: `Message to ${to}: ${subject}` });
  const link = message.getByRole('link', { name: path }).first();
  await expect(link).toBeVisible();
  return new URL((await link.getAttribute('href'))!).pathname;
}

test('a company asks for access, confirms its address, an admin approves, and the developer receives the key once', async ({
  page,
  browser,
  partnerApi,
}) => {
  const company = `Onboarding Couriers ${Date.now()}`;
  const email = `ops-${Date.now()}@couriers.example`;
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto('/access');
  await visitor.getByLabel('Company').fill(company);
  await visitor.getByLabel('Your name').fill('Ada Lovelace');
  await visitor.getByLabel('Work e-mail').fill(email);
  await visitor.getByLabel('What will you use the API for?').fill('Same-day deliveries for our shops.');
  await visitor.getByRole('button', { name: 'Request access' }).click();
  await expect(visitor.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();

  // Not confirmed yet: operators do not see it.
  await signIn(page);
  await page.goto('/access-requests');
  await expect(page.getByRole('table', { name: 'Access requests: new' })).not.toContainText(company);

  // The confirmation mail, followed as the contact would; the link alone confirms nothing.
  const confirm = await linkInOutbox(page, email, 'Confirm your request for sandbox access', /\/access\/confirm\//);
  await visitor.goto(confirm);
  await visitor.getByRole('button', { name: 'Confirm my e-mail address' }).click();
  await expect(visitor.getByRole('main')).toContainText(/confirmed/i);

  // The admin approves: the partner is created and its sandbox credential handed over to the contact.
  await page.goto('/access-requests');
  const row = page.getByRole('table', { name: 'Access requests: new' }).getByRole('row').filter({ hasText: company });
  await row.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Approve and send credentials' }).click();
  await expect(page.getByRole('table', { name: 'Access requests: new' })).not.toContainText(company);
  await snapshot(page, 'access-requests-approved', test.info());

  const handover = await linkInOutbox(page, email, 'Your sandbox API credentials', /\/handover\//);
  await visitor.goto(handover);
  await visitor.getByRole('button', { name: 'Show my credentials' }).click();
  const shown = visitor.getByRole('status', { name: 'Your credentials' });
  const clientId = (await shown.getByLabel('Client ID').textContent())!;
  const key = (await shown.getByLabel('API key').textContent())!;
  await partnerApi.as({ clientId, apiKey: key }).post('/partner/quotes', QUOTE);
  await visitor.reload();
  await expect(visitor.getByRole('alert', { name: 'Link refused' })).toContainText('already used');

  // The audit log holds each step.
  await page.goto('/audit');
  const audit = page.getByRole('table', { name: 'Audit entries, newest first' });
  for (const action of ['credential.handover.open', 'credential.handover', 'credential.issue', 'partner.create']) {
    await expect(audit.getByRole('row').filter({ hasText: action }).first()).toBeVisible();
  }
});
