import { expect, QUOTE, test } from './partner-api';
import { signIn, snapshot } from './console';

test('an admin hands sandbox credentials over by e-mail; the partner opens the kept message’s link, sees the key once and uses it', async ({
  page,
  browser,
  partnerApi,
}) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Partners' }).click();
  const name = `Handover ${Date.now()}`;
  await page.getByLabel('Partner name').fill(name);
  await page.getByRole('button', { name: 'Create partner' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  // With an e-mail the key is not shown: it is handed over.
  const email = `dev-${Date.now()}@partner.example`;
  await page.getByLabel('Hand over to (e-mail)').fill(email);
  await page.getByRole('button', { name: 'Issue sandbox credentials' }).click();
  const notice = page.getByRole('status', { name: 'Issued credentials' });
  await expect(notice).toContainText(`handed over to ${email}`);
  await expect(notice).not.toContainText('sk_sandbox_');
  const clientId = (await notice.locator('code').textContent())!;
  await expect(page.getByRole('table', { name: /API credentials/ })).toContainText(`sent to ${email}`);

  // No SMTP_URL (npm start's default): the message waits in the console's outbox, its link readable.
  await page.getByRole('link', { name: 'Outbox' }).click();
  const message = page.getByRole('article', { name: `Message to ${email}: Your sandbox API credentials` });
  const link = message.getByRole('link', { name: /\/handover\// });
  await expect(link).toBeVisible();
  await expect(page.getByRole('table', { name: /Mail, newest first/ })).toContainText('kept');
  await snapshot(page, 'outbox', test.info());
  const href = (await link.getAttribute('href'))!;

  // The partner, not signed in, in a browser of its own.
  const partner = await (await browser.newContext()).newPage();
  const opened = await partner.goto(new URL(href).pathname);
  expect(opened!.headers()['referrer-policy']).toBe('no-referrer');
  expect(opened!.headers()['cache-control']).toContain('no-store');
  await expect(partner.getByRole('button', { name: 'Show my credentials' })).toBeVisible();
  await expect(partner.locator('body')).not.toContainText('sk_sandbox_');
  await snapshot(partner, 'handover-before', test.info());

  await partner.getByRole('button', { name: 'Show my credentials' }).click();
  const shown = partner.getByRole('status', { name: 'Your credentials' });
  await expect(shown).toContainText('secrets manager');
  await expect(shown).toContainText('front-end bundle');
  await expect(shown.getByRole('button', { name: 'Copy key' })).toBeVisible();
  await expect(shown.getByLabel('Client ID')).toHaveText(clientId);
  const key = (await shown.getByLabel('API key').textContent())!;
  expect(key).toMatch(/^sk_sandbox_/);
  await snapshot(partner, 'handover-after', test.info());

  await partnerApi.as({ clientId, apiKey: key }).post('/partner/quotes', QUOTE);

  // A second visit: the link was used, and the page says whom to ask.
  await partner.reload();
  const refused = partner.getByRole('alert', { name: 'Link refused' });
  await expect(refused).toContainText('already used');
  await expect(refused).toContainText('Ask your contact');
  await expect(partner.getByRole('button', { name: 'Show my credentials' })).toBeHidden();
  await snapshot(partner, 'handover-used', test.info());

  // The operator sees it opened.
  await page.goto('/partners');
  await page.getByLabel('Search by name or id').fill(name);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name }).click();
  await expect(page.getByRole('table', { name: /API credentials/ })).toContainText(`opened`);
  await expect(page.getByRole('button', { name: 'Send a new link' })).toBeVisible();
  await snapshot(page, 'partner-handover', test.info());
});
