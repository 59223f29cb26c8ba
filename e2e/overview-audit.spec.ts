import { readFile } from 'node:fs/promises';
import { expect, test } from './partner-api';
import { operatorApi, signIn, snapshot } from './console';

// The overview after real traffic (orders by REST, a subscription nobody answers), the audit log of
// what an operator did (filtered, diffed, exported as CSV), and both reached by keyboard alone.

const DEAD_URL = 'https://127.0.0.1:1/hook';

test('the overview charts the traffic, names the failing subscription and lists its latest failures, live', async ({
  page,
  partnerApi,
}) => {
  // A subscription to a port nobody listens on: every attempt fails with a connection error.
  const subscriptionId = (await partnerApi.post('/partner/webhooks', { url: DEAD_URL, event_filters: ['order.created'] })).id as string;
  for (let i = 0; i < 3; i++) await partnerApi.newOrder();

  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await expect(page.getByTestId('refreshed')).toContainText(/Refreshed at \d\d:\d\d:\d\d \S+; refreshes every 10 s/);

  // The failures arrive within a poll or two.
  const failures = page.getByRole('table', { name: /The newest failed attempts/ });
  await expect(failures.getByRole('row').filter({ hasText: 'order.created' }).first()).toBeVisible({ timeout: 30_000 });
  await expect(failures).toContainText('connection');
  const eventLink = failures.getByRole('link', { name: /Deliveries of event/ }).first();
  await expect(eventLink).toHaveAttribute('href', /^\/deliveries\?eventId=[0-9A-Z]{26}$/);
  await expect(failures.getByRole('link', { name: DEAD_URL }).first()).toHaveAttribute('href', `/subscriptions/${subscriptionId}`);

  const failing = page.getByRole('table', { name: /whose attempts fail/ });
  await expect(failing.getByRole('link', { name: DEAD_URL })).toHaveAttribute('href', `/subscriptions/${subscriptionId}`);

  // The chart, its figures, and the same minutes as a table.
  const chart = page.getByRole('img', { name: /Delivery attempts per minute, last hour: \d+ succeeded and [1-9]\d* failed/ });
  await expect(chart).toBeVisible();
  await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(page.locator('.card').filter({ hasText: 'Success rate' })).toContainText('%');
  await expect(page.locator('.card').filter({ hasText: 'Queue depth' })).toContainText(/deliveries pending, \d+ due now/);
  await expect(page.locator('.card').filter({ hasText: 'Oldest waiting delivery' })).toBeVisible();
  await page.getByText('The minutes with attempts, as a table').click();
  await expect(page.getByRole('table', { name: 'Attempts per minute by outcome, oldest first' }).getByRole('row')).not.toHaveCount(1);
  await snapshot(page, 'overview', test.info());

  // The window lives in the URL; the page polls on its own.
  await page.getByLabel('Time window').selectOption({ label: 'Last 24 hours' });
  await expect(page).toHaveURL(/\?window=1440$/);
  await expect(page.getByRole('img', { name: /last 24 hours/ })).toBeVisible();
  const before = await page.getByTestId('refreshed').textContent();
  await expect(page.getByTestId('refreshed')).not.toHaveText(before!, { timeout: 15_000 });
});

test('the audit log lists what an operator did, filters by action, shows the change, and exports the same rows as CSV', async ({
  page,
}) => {
  await signIn(page);
  const name = `Audit Partner ${Date.now()}`;
  const created = await operatorApi(page, 'mutation($name: String!) { createPartner(name: $name) { id } }', { name });
  const partnerId = created.createPartner.id as string;

  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: /Audit entries/ });
  await expect(table).toContainText('operator.sign_in');
  await expect(table).toContainText(process.env.E2E_OPERATOR_EMAIL!);
  await expect(table.getByRole('row').filter({ hasText: partnerId })).toContainText('partner.create');

  // A time range the wrong way round is refused beside "Until", before anything is asked.
  await page.getByLabel('From (inclusive)').fill('2026-01-02T10:00');
  await page.getByLabel('Until (exclusive)').fill('2026-01-01T10:00');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByLabel('Until (exclusive)')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('until must be after since')).toBeVisible();
  await page.getByLabel('From (inclusive)').fill('');
  await page.getByLabel('Until (exclusive)').fill('');

  await page.getByLabel('Action', { exact: true }).fill('partner.create');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(/\/audit\?action=partner\.create$/);
  const rows = table.locator(':scope > tbody > tr');
  await expect(rows.filter({ hasText: partnerId })).toHaveCount(1);
  const shown = await rows.count();
  for (let i = 0; i < shown; i++) await expect(rows.nth(i)).toContainText('partner.create');

  // Before and after, readable: the changed fields as a diff.
  const row = rows.filter({ hasText: partnerId });
  await row.getByText('1 field: name').click();
  await expect(row.getByRole('table', { name: 'Changed fields' })).toContainText(name);
  await snapshot(page, 'audit-log', test.info());

  // The export carries the same filter: exactly the rows shown.
  await expect(page.getByRole('link', { name: 'Export NDJSON' })).toHaveAttribute(
    'href',
    '/api/audit-log/export?format=ndjson&action=partner.create',
  );
  const downloading = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export CSV' }).click();
  const download = await downloading;
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.split('\r\n').filter((l) => l.length > 0);
  expect(lines[0]).toBe('id,at,actor,actor_email,action,target_type,target_id,before,after');
  expect(lines).toHaveLength(shown + 1);
  for (const line of lines.slice(1)) expect(line).toContain(',partner.create,partner,');
  expect(lines.some((l) => l.includes(partnerId) && l.includes(name))).toBe(true);
});

test('keyboard only: sign in with Tab and Enter, skip to the page, reach the audit log and filter it', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Operator sign-in' })).toBeVisible();
  await snapshot(page, 'sign-in', test.info());
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('E-mail')).toBeFocused();
  await page.keyboard.type(process.env.E2E_OPERATOR_EMAIL!);
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Password')).toBeFocused();
  await page.keyboard.type(process.env.E2E_OPERATOR_PASSWORD!);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();

  // First Tab: the skip link; then the navigation, in order, to the audit log.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to main content' })).toBeFocused();
  const audit = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' });
  for (let i = 0; i < 20 && !(await audit.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(audit).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
  await expect(audit).toHaveAttribute('aria-current', 'page');

  // The skip link lands in main: the next Tab is the first filter; Enter in a field applies the filters.
  await page.keyboard.press('Shift+Tab');
  for (
    let i = 0;
    i < 8 && !(await page.getByRole('link', { name: 'Skip to main content' }).evaluate((el) => el === document.activeElement));
    i++
  ) {
    await page.keyboard.press('Shift+Tab');
  }
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Actor (e-mail, operator id or raw actor)')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Action', { exact: true })).toBeFocused();
  await page.keyboard.type('operator.sign_in');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/audit\?action=operator\.sign_in$/);
  await expect(
    page
      .getByRole('table', { name: /Audit entries/ })
      .locator('tbody tr')
      .first(),
  ).toContainText('operator.sign_in');
  await snapshot(page, 'audit-log-keyboard', test.info());
});
