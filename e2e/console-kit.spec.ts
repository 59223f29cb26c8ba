import type { Locator } from '@playwright/test';
import { expect, test } from './partner-api';
import { operatorApi, signIn } from './console';
import { startReceiver } from './receiver';

// The console's kit (app/_console/ui/) on the pages that use it: an id links to its object's page, every time
// cell reads as formatTime writes it, and a filter form shows its errors in one place whichever page it is on.

/** A time cell: a <time> whose text is its own datetime as the console formats it (the browser's language and zone, named). */
async function expectTimeCell(cell: Locator) {
  const time = cell.locator('time');
  const formatted = await time.evaluate((el) =>
    new Date(el.getAttribute('datetime')!).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' }),
  );
  await expect(time).toHaveText(formatted);
}

test('id links lead to their object, time cells read alike, and filter forms show errors the same way', async ({ page, partnerApi }) => {
  await signIn(page);
  // A partner of its own: its order and subscription are in no other spec's deliveries or replays.
  const { createPartner } = await operatorApi(page, 'mutation($name: String!) { createPartner(name: $name) { id } }', {
    name: `Kit Partner ${Date.now()}`,
  });
  const { issueCredential } = await operatorApi(
    page,
    'mutation($id: ID!) { issueCredential(partnerId: $id, environment: sandbox) { clientId key } }',
    { id: createPartner.id },
  );
  const api = partnerApi.as({ clientId: issueCredential.clientId, apiKey: issueCredential.key });
  const receiver = await startReceiver();
  try {
    const hook = await api.post('/partner/webhooks', { url: `${receiver.url}/kit`, event_filters: ['order.created'] });
    const order = await api.newOrder();
    await expect.poll(() => receiver.received.length, { message: 'the receiver got order.created' }).toBe(1);
    const eventId = receiver.received[0]!.headers['x-service-event-id'] as string;

    await page.goto(`/deliveries?orderId=${order.id}`);
    const delivery = page
      .getByRole('table', { name: /^Deliveries/ })
      .getByRole('row')
      .filter({ hasText: hook.id });
    const open = delivery.getByRole('link', { name: /^Open delivery / });
    const deliveryId = (await open.locator('code').getAttribute('title'))!;
    await expect(open).toHaveAttribute('href', `/deliveries/${deliveryId}`);
    await expect(delivery.getByRole('link', { name: eventId })).toHaveAttribute('href', `/events?id=${eventId}`);
    await expect(delivery.getByRole('link', { name: order.id })).toHaveAttribute('href', `/orders/${order.id}`);
    await expectTimeCell(delivery.getByRole('cell').nth(1));

    await page.goto(`/events?orderId=${order.id}`);
    const event = page
      .getByRole('table', { name: /^Events/ })
      .getByRole('row')
      .filter({ hasText: eventId });
    await expect(event.getByRole('link', { name: `order ${order.id}` })).toHaveAttribute('href', `/orders/${order.id}`);
    const toHook = event.getByRole('link', { name: `Delivery ${deliveryId} to subscription ${hook.id}` });
    await expect(toHook).toHaveAttribute('href', `/deliveries/${deliveryId}`);
    await expectTimeCell(event.getByRole('cell').nth(1));

    // Orders → the order's timeline → its delivery → back to the order, each through an id link.
    await page.goto(`/orders?q=${order.id}`);
    const orderRow = page
      .getByRole('table', { name: `Orders matching ${order.id}` })
      .getByRole('row')
      .nth(1);
    await expectTimeCell(orderRow.getByRole('cell').nth(4));
    await orderRow.getByRole('link', { name: `Timeline of order ${order.id}` }).click();
    await page.getByRole('link', { name: `Delivery ${deliveryId} of order.created to subscription ${hook.id}` }).click();
    await expect(page.getByRole('heading', { name: `Delivery ${deliveryId}` })).toBeVisible();
    await page.getByRole('link', { name: order.id }).click();
    await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();

    // The audit log's times read the same; a range the wrong way round is refused beside "Until", whether the
    // form finds it as typed or the server in a shared link.
    await page.goto('/audit');
    await expectTimeCell(
      page
        .getByRole('table', { name: /^Audit entries/ })
        .getByRole('row')
        .nth(1)
        .getByRole('cell')
        .first(),
    );
    const until = page.getByLabel('Until (exclusive)');
    await page.getByLabel('From (inclusive)').fill('2026-01-02T10:00');
    await until.fill('2026-01-01T10:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(until).toHaveAccessibleDescription(/^until must be after since/);
    await page.goto('/audit?since=2026-01-02T10:00:00.000Z&until=2026-01-01T10:00:00.000Z');
    await expect(until).toHaveAttribute('aria-invalid', 'true');
    await expect(until).toHaveAccessibleDescription(/until must be after since/);

    // What no field owns (a cursor the API never gave) is listed under the form, on any page.
    for (const [path, form] of [
      ['/events?after=bogus', 'Find events'],
      ['/orders?after=bogus', 'Find an order'],
    ] as const) {
      await page.goto(path);
      await expect(page.locator(`form[aria-label="${form}"] + [role="alert"]`)).toHaveText('after is not a cursor this API returned.');
    }
  } finally {
    await receiver.close();
  }
});
