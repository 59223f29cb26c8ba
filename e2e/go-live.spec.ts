import type { Page } from '@playwright/test';
import { expect, test } from './partner-api';
import { signIn, snapshot } from './console';

// The go-live review backed by the sandbox record: the demo partner works in the sandbox by REST and
// asks for go-live; the admin watches the checklist follow, opens the evidence, and approves with an
// e-mail (the production credential is handed over, not shown).

/** Re-reads the checklist until the item shows `result`: counts reach the database every 5 s. */
async function expectCheck(page: Page, key: string, result: 'Passed' | 'Not yet') {
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh checklist' }).click();
        return page.getByTestId(`check-${key}`).textContent();
      },
      { timeout: 20_000, intervals: [500, 1000, 2000] },
    )
    .toContain(result);
}

test('the demo partner works in the sandbox and asks for go-live; the admin reviews its record and approves with an e-mail', async ({
  page,
  partnerApi,
}) => {
  test.setTimeout(120_000);
  const first = await partnerApi.newOrder();
  await partnerApi.post('/partner/go-live-request', { note: 'Quotes and orders work in our staging app.' }, 202);

  await signIn(page);
  await page.getByRole('link', { name: 'Partners' }).click();
  await page.getByLabel('Search by name or id').fill('Demo Partner');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: 'Demo Partner' }).first().click();
  await expect(page.getByTestId('go-live-status')).toHaveText(/Requested/);
  const checklist = page.getByRole('table', { name: 'Go-live checklist' });
  await expect(checklist).toBeVisible();
  await expectCheck(page, 'quotes', 'Passed');
  await expectCheck(page, 'order_delivered_and_cancelled', 'Not yet');
  const history = page.getByRole('table', { name: 'Go-live history' });
  await expect(history).toContainText(`partner:${process.env.E2E_CLIENT_ID}`);
  await expect(history).toContainText('Quotes and orders work in our staging app.');

  // More sandbox work: one order simulated to delivered, another cancelled; the checklist follows.
  for (let step = 0; step < 8; step++) {
    const moved = await partnerApi.post(`/partner/orders/${first.id}/simulate`, {}, 200);
    if (moved.status === 'delivered') break;
  }
  const second = await partnerApi.newOrder();
  await partnerApi.post(`/partner/orders/${second.id}/cancel`, {}, 200);
  await expectCheck(page, 'order_delivered_and_cancelled', 'Passed');
  await expectCheck(page, 'invalid_share', 'Passed');
  const evidence = page.getByTestId('check-order_delivered_and_cancelled').getByRole('link', { name: first.id });
  await expect(evidence).toHaveAttribute('href', `/orders/${first.id}`);
  await snapshot(page, 'go-live-review', test.info());

  // Approve with an e-mail: the production credential is issued and its one-time link e-mailed.
  await page.getByLabel('Review note').fill('Sandbox record checked.');
  await page.getByLabel(/Partner e-mail/).fill('ops@demo-partner.example');
  await page.getByRole('button', { name: 'Approve go-live' }).click();
  await expect(page.getByTestId('go-live-status')).toHaveText(/Approved/);
  await expect(page.getByRole('status').filter({ hasText: 'Production credential' })).toContainText('ops@demo-partner.example');
  await expect(history.getByRole('row').nth(1)).toContainText('requested → approved');
  await expect(page.getByRole('table', { name: /API credentials/ })).toContainText('production');
  await snapshot(page, 'go-live-approved', test.info());

  // Once approved, the partner's sandbox key asking again gets the state, not a new review.
  const again = await partnerApi.post('/partner/go-live-request', {}, 409);
  expect(again.error).toMatchObject({ code: 'go_live_already_approved', go_live_status: 'approved' });
});
