import type { Page } from '@playwright/test';
import { expect, test, type PartnerApi } from './partner-api';
import { signIn, snapshot } from './console';
import { startReceiver } from './receiver';

// An order's timeline a page at a time (issue 21: the page read every event of an order at once), each
// delivery with its latest attempts only, and the history cap as an admin meets it: a move that does not end
// a full order is refused beside the control, while cancelling it still works.

/** Flips the sandbox order courier_assigned <-> created `times` times (or until refused); the last answer. */
async function flip(partnerApi: PartnerApi, orderId: string, times: number) {
  let last = { status: 0, body: {} as { status?: string; error?: { code: string } } };
  for (let i = 0; i < times; i++) {
    const to = last.body.status === 'courier_assigned' ? 'created' : 'courier_assigned';
    last = await partnerApi.send('POST', `/partner/orders/${orderId}/simulate`, { status: to });
    if (last.status !== 200) break;
  }
  return last;
}

test('an admin pages through a long order’s events, sees each delivery’s latest attempts, and meets the history cap beside Advance', async ({
  page,
  partnerApi,
}) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    await timeline(page, partnerApi, receiver);
  } finally {
    await receiver.close();
  }
});

async function timeline(page: Page, partnerApi: PartnerApi, receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const hook = await partnerApi.send('POST', '/partner/webhooks', { url: `${receiver.url}/timeline`, event_filters: ['order.created'] });
  expect(hook.status).toBe(201);
  const quote = await partnerApi.send('POST', '/partner/quotes', {
    pickup: { lat: 40.7484, lng: -73.9857 },
    dropoff: { lat: 40.758, lng: -73.9855 },
  });
  expect(quote.status).toBe(201);
  const order = (await partnerApi.send('POST', '/partner/orders', { quote_id: quote.body.id })).body;
  await expect.poll(() => receiver.received.length, { message: 'order.created arrived' }).toBe(1);
  const eventId = receiver.received[0]!.headers['x-service-event-id'] as string;
  // Redelivered until six attempts arrived (one still on its way is not sent twice): more than the timeline shows.
  await expect
    .poll(
      async () => {
        if (receiver.received.length < 6)
          await partnerApi.send('POST', `/partner/events/${eventId}/redeliver`, { webhook_id: hook.body.id });
        return receiver.received.length;
      },
      { message: 'six attempts of order.created arrived', timeout: 30_000, intervals: [300] },
    )
    .toBe(6);
  // 24 flips: 25 events, three pages of ten; the newest is the 24th flip, back to created.
  expect((await flip(partnerApi, order.id, 24)).status).toBe(200);

  await signIn(page);
  await page.goto(`/orders/${order.id}`);
  await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Status history' }).getByRole('listitem')).toHaveCount(25);
  const range = page.getByTestId('event-range');
  const events = page.locator('section.panel h3');
  await expect(range).toHaveText('Newest first: events 1 to 10');
  await expect(events).toHaveCount(10);
  await expect(events.first()).toContainText('order.courier_unassigned');
  const newer = page.getByRole('button', { name: 'Newer events' });
  const older = page.getByRole('button', { name: 'Older events' });
  await expect(newer).toBeDisabled();

  await older.click();
  await expect(range).toHaveText('Newest first: events 11 to 20');
  await expect(events).toHaveCount(10);
  await older.click();
  await expect(range).toHaveText('Newest first: events 21 to 25');
  await expect(events).toHaveCount(5);
  await expect(events.last()).toContainText('order.created');
  await expect(older).toBeDisabled();
  // Other specs' subscriptions of the shared demo partner take this event too (a replay of theirs can give
  // their delivery more than five attempts: seen once), so the assertions read this spec's delivery only.
  const attempts = page.getByRole('table', { name: `Attempts of order.created to subscription ${hook.body.id}` });
  const delivery = page.locator('div.delivery').filter({ has: attempts });
  await expect(attempts.locator('tbody tr')).toHaveCount(5);
  await expect(delivery.getByText(/The latest 5 of 6 attempts/)).toBeVisible();
  await expect(delivery.getByRole('link', { name: 'all of them' })).toHaveAttribute('href', /\/deliveries\//);
  await snapshot(page, 'order-timeline-last-page', test.info());
  await newer.click();
  await expect(range).toHaveText('Newest first: events 11 to 20');

  // To the cap (99 entries): the next flip is refused through the API, and in the console too.
  const refused = await flip(partnerApi, order.id, 200);
  expect(refused).toMatchObject({ status: 409, body: { error: { code: 'order_history_full' } } });
  await page.reload();
  await expect(page.getByRole('list', { name: 'Status history' }).getByRole('listitem')).toHaveCount(99);
  await expect(range).toHaveText('Newest first: events 1 to 10');
  await page.getByLabel('Move to').selectOption('courier_assigned');
  await page.getByRole('button', { name: 'Advance' }).click();
  await expect(page.getByText(/keeps at most 100/)).toBeVisible();
  await expect(page.getByTestId('order-status')).toHaveText('created');

  // Ending the order is still accepted; the page shows its newest events again, the cancellation first.
  await page.getByLabel('Move to').selectOption('cancelled');
  await page.getByLabel('Reason').fill('stuck in a loop');
  await page.getByRole('button', { name: 'Advance' }).click();
  await expect(page.getByTestId('order-status')).toHaveText('cancelled');
  await expect(page.getByRole('list', { name: 'Status history' }).getByRole('listitem')).toHaveCount(100);
  await expect(events.first()).toContainText('order.cancelled');
  await expect(range).toHaveText('Newest first: events 1 to 10');
  await snapshot(page, 'order-timeline-capped', test.info());
}
