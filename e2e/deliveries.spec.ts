import { expect, test } from './partner-api';
import { signIn, snapshot } from './console';
import { startReceiver } from './receiver';

// The support path through a delivery problem, clicked as an operator would: a partner's webhook to a real
// HTTPS receiver, its order; the order's deliveries found in the log and on its timeline, an attempt opened
// and redelivered (the receiver gets the same event id again), and a range replayed after its preview.

test('an admin finds an order’s deliveries, opens an attempt, redelivers it and replays a range to completion', async ({
  page,
  partnerApi,
}) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    const hook = await partnerApi.post('/partner/webhooks', {
      url: `${receiver.url}/hook`,
      event_filters: ['order.created', 'order.courier_assigned'],
    });
    const quote = await partnerApi.post('/partner/quotes', {
      pickup: { lat: 40.7484, lng: -73.9857 },
      dropoff: { lat: 40.758, lng: -73.9855 },
    });
    const externalId = `e2e-${Date.now()}`;
    const order = await partnerApi.post('/partner/orders', { quote_id: quote.id, external_id: externalId });
    const eventIds = () => receiver.received.map((r) => r.headers['x-service-event-id']);
    await expect.poll(() => receiver.received.length, { message: 'the receiver got order.created' }).toBe(1);
    const eventId = eventIds()[0] as string;
    expect(JSON.parse(receiver.received[0]!.body).data.object.id).toBe(order.id);

    // The log, filtered by order id in the UI; the filter lands in the URL.
    await signIn(page);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Deliveries' }).click();
    await page.getByLabel('Order id', { exact: true }).fill(order.id);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page).toHaveURL(new RegExp(`orderId=${order.id}`));
    const log = page.getByRole('table', { name: /Deliveries, newest first/ });
    await expect(log.getByRole('row')).toHaveCount(2);
    await expect(log).toContainText('order.created');
    await expect(log).toContainText('succeeded');
    await expect(log).toContainText(eventId);
    await snapshot(page, 'deliveries', test.info());

    // The same by the order's external id, from a shared link.
    await page.goto(`/deliveries?externalId=${externalId}`);
    await expect(page.getByLabel('Order external id')).toHaveValue(externalId);
    await expect(log.getByRole('row')).toHaveCount(2);

    // Open the delivery: envelope and the attempt as sent and answered.
    await log.getByRole('link', { name: /^Open delivery/ }).click();
    await expect(page.getByRole('heading', { name: /^Delivery / })).toBeVisible();
    const first = page.locator('details#attempt-1');
    await expect(first).toContainText('200');
    await expect(first.getByRole('table', { name: /Request headers of attempt 1/ })).toContainText('x-service-event-id');
    await expect(first.getByRole('table', { name: /Request headers of attempt 1/ })).toContainText(eventId);
    await expect(first).toContainText('received');
    await expect(page.locator('pre[aria-labelledby="envelope"]')).toContainText(order.id);
    await snapshot(page, 'delivery', test.info());

    // Redeliver: the receiver gets the same event id again; the attempt is manual and names the admin.
    await page.getByRole('button', { name: 'Redeliver to this subscription' }).click();
    await expect.poll(() => receiver.received.length, { message: 'the redelivery arrived' }).toBe(2);
    expect(eventIds()[1]).toBe(eventId);
    const second = page.locator('details#attempt-2');
    await expect(second).toContainText(`manual by operator:${process.env.E2E_OPERATOR_EMAIL}`);
    await snapshot(page, 'delivery-redelivered', test.info());

    // The order's timeline, found by its external id: status history, event, delivery and both attempts.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByLabel('Order id or external id').fill(externalId);
    await page.getByRole('button', { name: 'Find' }).click();
    await expect(page.getByRole('table', { name: `Orders matching ${externalId}` }).getByRole('row')).toHaveCount(2);
    await snapshot(page, 'orders', test.info());
    await page.getByRole('link', { name: `Timeline of order ${order.id}` }).click();
    await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
    const attempts = page.getByRole('table', { name: `Attempts of order.created to subscription ${hook.id}` });
    await expect(attempts.getByRole('row')).toHaveCount(3);
    await expect(attempts).toContainText('manual');
    // Admin advances the order; its event goes to the receiver too.
    await page.getByLabel('Move to').selectOption('courier_assigned');
    await page.getByRole('button', { name: 'Advance' }).click();
    await expect(page.getByTestId('order-status')).toHaveText('courier_assigned');
    await expect(page.getByRole('heading', { name: /order\.courier_assigned/ })).toBeVisible();
    await expect.poll(() => receiver.received.length, { message: 'order.courier_assigned arrived' }).toBe(3);
    await page.reload();
    await expect(page.getByRole('table', { name: `Attempts of order.courier_assigned to subscription ${hook.id}` })).toContainText('200');
    await snapshot(page, 'order-timeline', test.info());

    // Events: search by order; each event links to its deliveries.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Order id').fill(order.id);
    await page.getByRole('button', { name: 'Search' }).click();
    const events = page.getByRole('table', { name: /Events of every partner/ });
    await expect(events.getByRole('row')).toHaveCount(3);
    await expect(events).toContainText('order.courier_assigned');
    await snapshot(page, 'events', test.info());

    // Replay a range from the subscription's deliveries: preview first, then watch it complete.
    await page.goto(`/deliveries?subscriptionId=${hook.id}`);
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('status', { name: 'Replay preview' });
    // Other specs may give the demo partner orders too: the window holds at least this order's two events.
    await expect(preview).toContainText('would be sent again');
    const matched = Number(await preview.locator('strong').textContent());
    expect(matched).toBeGreaterThanOrEqual(2);
    await expect(preview).toContainText(eventId);
    await snapshot(page, 'replay-preview', test.info());
    const before = receiver.received.length;
    await preview.getByRole('button', { name: `Replay ${matched} events` }).click();
    const progress = page.getByRole('progressbar', { name: /Progress of replay/ });
    await expect(progress).toHaveCount(1);
    await expect(page.getByRole('table', { name: /Replays of subscription/ })).toContainText('completed', { timeout: 30_000 });
    await expect(progress).toHaveAttribute('value', String(matched));
    await expect(progress).toHaveAttribute('max', String(matched));
    await expect.poll(() => receiver.received.length, { message: 'every event replayed' }).toBe(before + matched);
    expect(eventIds().slice(before)).toEqual(expect.arrayContaining([...new Set(eventIds().slice(0, 3))]));
    // The log re-reads itself when the replay ends: order.created now has its replay attempt (3 in all).
    const createdRow = log.getByRole('row').filter({ hasText: 'order.created' });
    await expect(createdRow.getByRole('cell').nth(5)).toHaveText('3');
    await snapshot(page, 'deliveries-of-subscription', test.info());

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Replays' }).click();
    await expect(page.getByRole('table', { name: /Replays of every partner/ })).toContainText('completed');
    await snapshot(page, 'replays', test.info());

    // The audit log names the admin for the redelivery, the order's advance and the replay.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit entries, newest first' });
    for (const action of ['event.redeliver', 'order.advance', 'webhook.replay']) {
      await expect(
        audit.getByRole('row').filter({ hasText: action }).filter({ hasText: process.env.E2E_OPERATOR_EMAIL! }).first(),
      ).toBeVisible();
    }
  } finally {
    await receiver.close();
  }
});

test('support redelivers and replays from the console, but the order timeline offers them no advance', async ({
  page,
  browser,
  partnerApi,
}) => {
  const receiver = await startReceiver();
  try {
    const hook = await partnerApi.post('/partner/webhooks', { url: `${receiver.url}/support`, event_filters: ['order.created'] });
    const quote = await partnerApi.post('/partner/quotes', {
      pickup: { lat: 40.7484, lng: -73.9857 },
      dropoff: { lat: 40.758, lng: -73.9855 },
    });
    const order = await partnerApi.post('/partner/orders', { quote_id: quote.id });
    await expect.poll(() => receiver.received.length, { message: 'the receiver got order.created' }).toBe(1);

    // A support operator, made by the admin over the console's own API (the Operators page is tested elsewhere).
    await signIn(page);
    const email = `support-${Date.now()}@example.com`;
    const made = await page.request.post('/api/graphql', {
      data: {
        query: 'mutation($email: String!) { createOperator(email: $email, role: support) { generatedPassword } }',
        variables: { email },
      },
    });
    const password = (await made.json()).data.createOperator.generatedPassword as string;
    const context = await browser.newContext();
    const theirs = await context.newPage();
    await signIn(theirs, email, password);

    await theirs.goto(`/orders/${order.id}`);
    await expect(theirs.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
    await expect(theirs.getByRole('table', { name: `Attempts of order.created to subscription ${hook.id}` })).toContainText('200');
    await expect(theirs.getByRole('heading', { name: 'Advance the order' })).toHaveCount(0);
    await expect(theirs.getByLabel('Move to')).toHaveCount(0);

    await theirs.getByRole('link', { name: new RegExp(`^Delivery \\w+ of order\\.created to subscription ${hook.id}$`) }).click();
    await theirs.getByRole('button', { name: 'Redeliver to this subscription' }).click();
    await expect.poll(() => receiver.received.length, { message: 'the redelivery arrived' }).toBe(2);
    await expect(theirs.locator('details#attempt-2')).toContainText(`manual by operator:${email}`);

    await theirs.goto(`/deliveries?subscriptionId=${hook.id}`);
    await expect(theirs.getByRole('button', { name: 'Preview' })).toBeVisible();
    await snapshot(theirs, 'deliveries-as-support', test.info());
    await context.close();
  } finally {
    await receiver.close();
  }
});
