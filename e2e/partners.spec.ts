import { expect, QUOTE, test } from './partner-api';
import { operatorApi, signIn, snapshot } from './console';

test('an admin creates a partner, issues sandbox credentials that work, and an allowlist entry refuses other addresses; support sees it read-only', async ({
  page,
  browser,
  partnerApi,
}) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Partners' }).click();
  await expect(page.getByRole('heading', { name: 'Partners', level: 1 })).toBeVisible();

  // Create a partner: the form validates before sending, then the new partner's page opens.
  await page.getByRole('button', { name: 'Create partner' }).click();
  await expect(page.getByLabel('Partner name')).toHaveAttribute('aria-invalid', 'true');
  const name = `Courier ${Date.now()}`;
  await page.getByLabel('Partner name').fill(name);
  await page.getByRole('button', { name: 'Create partner' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  const partnerUrl = page.url();

  // The list finds it by name (the search lives in the URL).
  await page.goto('/partners');
  await page.getByLabel('Search by name or id').fill(name.toLowerCase());
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/\?q=/);
  await expect(page.getByRole('table', { name: /Partners matching/ }).getByRole('link', { name })).toBeVisible();
  await snapshot(page, 'partners', test.info());
  await page.getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  // Issue sandbox credentials: the key is shown once, with a copy button and a warning.
  await expect(page.getByRole('button', { name: 'Issue production credentials' })).toBeDisabled();
  await page.getByRole('button', { name: 'Issue sandbox credentials' }).click();
  const notice = page.getByRole('status', { name: 'Issued credentials' });
  await expect(notice).toContainText('will not be shown again');
  await expect(notice.getByRole('button', { name: 'Copy key' })).toBeVisible();
  const clientId = (await notice.getByLabel('Issued client ID').textContent())!;
  const key = (await notice.getByLabel('Issued API key').textContent())!;
  await expect(page.getByRole('table', { name: /API credentials/ })).toContainText(clientId);
  await snapshot(page, 'partner-credential-issued', test.info());

  const quoted = await partnerApi.as({ clientId, apiKey: key }).send('POST', '/partner/quotes', QUOTE);
  expect(quoted.status).toBe(201);

  // An allowlist entry, validated as typed with the server's rule; then the test's loopback address is refused.
  const cidr = page.getByLabel('CIDR or address');
  await cidr.fill('203.0.113.0/33');
  await expect(cidr).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('not an IPv4 or IPv6 address or CIDR')).toBeVisible();
  await cidr.fill('203.0.113.7/24');
  await expect(cidr).toHaveAttribute('aria-invalid', 'false');
  await expect(page.getByText('Stored as 203.0.113.0/24')).toBeVisible();
  await page.getByLabel('Label (optional)').fill('partner egress');
  await page.getByRole('button', { name: 'Add to allowlist' }).click();
  const allowlist = page.getByRole('table', { name: /Address ranges/ });
  await expect(allowlist).toContainText('203.0.113.0/24');
  await expect(allowlist).toContainText('partner egress');
  // Every process applies the change within CREDENTIAL_CACHE_TTL_MS (3 s by default).
  await expect
    .poll(async () => (await partnerApi.as({ clientId, apiKey: key }).send('POST', '/partner/quotes', QUOTE)).status, {
      timeout: 15_000,
      intervals: [250, 500, 1000],
    })
    .toBe(403);
  await snapshot(page, 'partner', test.info());

  // A support operator (made through the operator API) sees the partner read-only: no credential or allowlist actions.
  const email = `support-partners-${Date.now()}@example.com`;
  const password = `support-pass-${Date.now()}`;
  await operatorApi(
    page,
    'mutation ($email: String!, $password: String) { createOperator(email: $email, role: support, password: $password) { operator { id } } }',
    {
      email,
      password,
    },
  );
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, email, password);
  await theirs.goto(partnerUrl);
  await expect(theirs.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(theirs.getByRole('table', { name: /API credentials/ })).toContainText(clientId);
  await expect(theirs.getByRole('table', { name: /Address ranges/ })).toContainText('203.0.113.0/24');
  await expect(theirs.getByRole('button', { name: /Issue .* credentials/ })).toHaveCount(0);
  await expect(theirs.getByRole('button', { name: /Revoke/ })).toHaveCount(0);
  await expect(theirs.getByLabel('CIDR or address')).toHaveCount(0);
  await expect(theirs.getByRole('button', { name: /Add to allowlist|Remove/ })).toHaveCount(0);
  await expect(theirs.getByRole('button', { name: /go-live/i })).toHaveCount(0);
  await expect(theirs.getByRole('button', { name: /Set limit|Restore default/ })).toHaveCount(0);
  await expect(theirs.getByRole('button', { name: 'Create partner' })).toHaveCount(0);
  await snapshot(theirs, 'partner-as-support', test.info());
  await other.close();

  // The admin removes the entry (after confirming) and revokes the key (after confirming): the key is refused.
  await page.getByRole('button', { name: 'Remove 203.0.113.0/24' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Remove entry' }).click();
  await expect(allowlist).not.toContainText('203.0.113.0/24');
  await page.getByRole('button', { name: `Revoke ${clientId}` }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke credential' }).click();
  await expect(page.getByRole('table', { name: /API credentials/ })).toContainText('revoked');
  await expect
    .poll(async () => (await partnerApi.as({ clientId, apiKey: key }).send('POST', '/partner/quotes', QUOTE)).status, {
      timeout: 15_000,
      intervals: [250, 500, 1000],
    })
    .toBe(401);

  // Go-live review and rate limit, by clicking.
  await page.getByRole('button', { name: 'Record go-live request' }).click();
  await expect(page.getByTestId('go-live-status')).toHaveText(/Requested/);
  await page.getByLabel('Review note').fill('UAT passed');
  await page.getByRole('button', { name: 'Approve go-live' }).click();
  await expect(page.getByTestId('go-live-status')).toHaveText(/Approved/);
  await expect(page.getByRole('button', { name: 'Issue production credentials' })).toBeEnabled();
  await page.getByLabel('Requests per second').fill('7');
  await page.getByRole('button', { name: 'Set limit' }).click();
  await expect(page.getByTestId('rate-limit-effective')).toContainText('7 requests per second');
  await page.getByRole('button', { name: 'Restore default' }).click();
  await expect(page.getByRole('button', { name: 'Restore default' })).toHaveCount(0);

  // The audit log shows each of these actions, by the demo admin.
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
  const audit = page.getByRole('table', { name: 'Audit entries, newest first' });
  for (const action of [
    'partner.create',
    'credential.issue',
    'allowlist.add',
    'allowlist.remove',
    'credential.revoke',
    'partner.go_live.request',
    'partner.go_live.approve',
    'partner.rate_limit.set',
  ]) {
    await expect(
      audit.getByRole('row').filter({ hasText: action }).filter({ hasText: process.env.E2E_OPERATOR_EMAIL! }).first(),
    ).toBeVisible();
  }
  await expect(audit).toContainText(clientId);
  await snapshot(page, 'audit-after-partner-actions', test.info());
});

test('a subscription made by REST opens from its partner page to its health, which support or admin disables and enables', async ({
  page,
  browser,
  partnerApi,
}) => {
  // A loopback address nothing listens on (the e2e service allows private networks): attempts fail.
  const url = `https://127.0.0.1:9/hook-${Date.now()}`;
  await partnerApi.post('/partner/webhooks', { url });
  // An order makes an order.created event, whose delivery to that address fails: the health page has an attempt to show.
  await partnerApi.newOrder();

  await signIn(page);
  await page.getByRole('link', { name: 'Partners' }).click();
  await page.getByLabel('Search by name or id').fill('Demo Partner');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: 'Demo Partner' }).first().click();
  const row = page
    .getByRole('table', { name: /Live subscriptions/ })
    .getByRole('row')
    .filter({ hasText: url });
  await expect(row).toContainText('enabled');
  await row.getByRole('link', { name: `Health of ${url}` }).click();
  await expect(page.getByRole('heading', { name: 'Subscription health', level: 1 })).toBeVisible();
  await expect(page.getByText(url)).toBeVisible();

  // The worker tries the delivery (connection refused): poll with a deadline, refreshing the page's data.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByRole('table', { name: 'Response status classes' })).toContainText('No HTTP answer', { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByRole('group', { name: 'Health at a glance' })).toContainText('Backlog');
  // The retrying delivery is this subscription's backlog: counted (up to backlogCountLimit, shown "1,000+" past it).
  await expect(page.locator('.card').filter({ hasText: 'Backlog (deliveries pending)' })).toContainText(/1\s*\d+ due now/);
  await page.getByRole('combobox', { name: 'Window', exact: true }).selectOption('6');
  await expect(page).toHaveURL(/hours=6/);
  // About 48 intervals per window: 8 minutes each over 6 hours; from 48 hours on, whole hours (read from the hourly rollup).
  await expect(page.getByText('Each point covers 8 minutes')).toBeVisible();
  await page.getByRole('combobox', { name: 'Window', exact: true }).selectOption('168');
  await expect(page).toHaveURL(/hours=168/);
  await expect(page.getByText('Each point covers 4 hours')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Response status classes' })).toContainText('No HTTP answer');
  await page.getByRole('combobox', { name: 'Window', exact: true }).selectOption('6');
  await expect(page).toHaveURL(/hours=6/);
  await snapshot(page, 'subscription-health', test.info());

  await page.getByRole('button', { name: 'Disable subscription' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Disable' }).click();
  await expect(page.getByTestId('subscription-status')).toHaveText(/disabled \(disabled by operator\)/);
  await snapshot(page, 'subscription-health-disabled', test.info());
  await page.getByRole('button', { name: 'Enable subscription' }).click();
  await expect(page.getByTestId('subscription-status')).toHaveText('enabled');

  // Support may enable and disable subscriptions too: the control is there for them.
  const email = `support-health-${Date.now()}@example.com`;
  const password = `support-pass-${Date.now()}`;
  await operatorApi(
    page,
    'mutation ($email: String!, $password: String) { createOperator(email: $email, role: support, password: $password) { operator { id } } }',
    {
      email,
      password,
    },
  );
  const healthUrl = page.url();
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, email, password);
  await theirs.goto(healthUrl);
  await theirs.getByRole('button', { name: 'Disable subscription' }).click();
  await theirs.getByRole('alertdialog').getByRole('button', { name: 'Disable' }).click();
  await expect(theirs.getByTestId('subscription-status')).toHaveText(/disabled/);
  await theirs.getByRole('button', { name: 'Enable subscription' }).click();
  await expect(theirs.getByTestId('subscription-status')).toHaveText('enabled');
  await other.close();
});

test("the partner page shows each environment's API version and each subscription's; the partners page lists who is on an older version", async ({
  page,
  partnerApi,
}) => {
  await signIn(page);
  const name = `Versioned ${Date.now()}`;
  const { createPartner } = await operatorApi(page, 'mutation ($name: String!) { createPartner(name: $name) { id } }', { name });
  const { issueCredential } = await operatorApi(
    page,
    'mutation ($id: ID!) { issueCredential(partnerId: $id, environment: sandbox) { clientId key } }',
    { id: createPartner.id },
  );
  const api = partnerApi.as({ clientId: issueCredential.clientId, apiKey: issueCredential.key });
  // Its first request pins the sandbox to the latest version; a subscription asks for the first one.
  const versions = (await api.send('GET', '/partner/versions')).body.data as { id: string; latest: boolean }[];
  const latest = versions.find((v) => v.latest)!.id;
  const first = versions.at(-1)!.id;
  const url = `https://127.0.0.1:9/versioned-${Date.now()}`;
  const hook = await api.post('/partner/webhooks', { url, api_version: first, event_filters: ['webhook.test'] });
  expect(hook.api_version).toBe(first);

  await page.goto(`/partners/${createPartner.id}`);
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  const pins = page.getByRole('table', { name: /The version each environment's requests are answered in/ });
  await expect(pins).toContainText(`latest: ${latest}`);
  await expect(page.getByTestId('api-version-sandbox')).toHaveText(latest);
  await expect(page.getByTestId('api-version-production')).toHaveText(`not pinned yet: its first request pins ${latest}`);
  // On the latest already: nothing to upgrade, nothing to roll back.
  await expect(pins.getByRole('button')).toHaveCount(0);
  const subscription = page
    .getByRole('table', { name: /Live subscriptions/ })
    .getByRole('row')
    .filter({ hasText: url });
  await expect(subscription.getByTestId('subscription-api-version')).toHaveText(first);
  await snapshot(page, 'partner-api-versions', test.info());

  // The partners page names it among those still on an older version, by its subscription.
  await page.goto('/partners');
  const older = page.getByRole('table', { name: /on a version older than/ });
  const row = older.getByRole('row').filter({ hasText: name });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').nth(2)).toHaveText('1');
});
