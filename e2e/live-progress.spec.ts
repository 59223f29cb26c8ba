import { expect, test } from './partner-api';
import { operatorApi, signIn, snapshot } from './console';
import { startReceiver } from './receiver';

// Issue 24: views that jobs keep changing are followed without a reload. A receiver that holds its answers
// keeps deliveries in flight, so the state between "every page enqueued" and "every delivery settled" can be
// seen; the subscriptions take only their own webhook.test events, so a replay's counts are exact.

test('a replay’s row follows its deliveries until they settle: never completed with a full bar while they are on their way', async ({
  page,
  partnerApi,
}) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    const hook = await partnerApi.post('/partner/webhooks', { url: `${receiver.url}/replayed`, event_filters: ['webhook.test'] });
    for (let i = 0; i < 6; i++) await partnerApi.post(`/partner/webhooks/${hook.id}/test`, {}, 202);
    await expect.poll(() => receiver.received.length, { message: 'the six test events arrived' }).toBe(6);

    await signIn(page);
    await page.goto(`/deliveries?subscriptionId=${hook.id}`);
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('status', { name: 'Replay preview' });
    await expect(preview.locator('strong')).toHaveText('6');

    // From here the receiver takes the replayed events and answers none: they stay in flight.
    receiver.hold();
    await preview.getByRole('button', { name: 'Replay 6 events' }).click();
    const replays = page.getByRole('table', { name: /Replays of subscription/ });
    const row = replays.locator('tr[data-replay]');
    await expect(row).toHaveCount(1);
    const replayId = (await row.getAttribute('data-replay'))!;
    const state = row.getByRole('cell').nth(2);
    const progress = row.getByRole('progressbar', { name: /Progress of replay/ });
    await expect.poll(() => receiver.held, { message: 'replayed events held in flight' }).toBeGreaterThan(0);
    // Every page is enqueued (the API's status says completed) while nothing is delivered yet.
    await expect
      .poll(async () => (await operatorApi(page, 'query($id: ID!) { replay(id: $id) { status } }', { id: replayId })).replay.status)
      .toBe('completed');
    await expect(state).toContainText('delivering');
    await expect(state).not.toContainText('completed');
    await expect(row).toContainText('0 delivered, 0 failed');
    await expect(row).toContainText('on the way of 6');
    const [value, max] = [Number(await progress.getAttribute('value')), Number(await progress.getAttribute('max'))];
    expect(value).toBeLessThan(max);
    // The log follows the replay: the rows it reopened read pending.
    const log = page.getByRole('table', { name: /Deliveries, newest first/ });
    await expect(log.getByRole('row').filter({ hasText: 'pending' }).first()).toBeVisible();
    await snapshot(page, 'replay-delivering', test.info());
    // Every replayed event that arrived is still unanswered (up to the replay's in-flight slots, 8 of 10: all 6 may be here).
    expect(receiver.held).toBe(receiver.received.length - 6);

    // Answered: the same page, not reloaded, reaches every delivery, a full bar and completed.
    receiver.release();
    await expect.poll(() => receiver.received.length, { message: 'every event replayed' }).toBe(12);
    await expect(row).toContainText('6 delivered, 0 failed of 6', { timeout: 20_000 });
    await expect(progress).toHaveAttribute('value', '6');
    await expect(progress).toHaveAttribute('max', '6');
    await expect(state).toContainText('completed');
    await expect(state).not.toContainText('delivering');
    // The log is read again when the replay settles: each delivery succeeded, none pending.
    await expect(log.getByRole('row').filter({ hasText: 'succeeded' })).toHaveCount(6);
    await expect(log.getByRole('row').filter({ hasText: 'pending' })).toHaveCount(0);
    await snapshot(page, 'replay-settled', test.info());
  } finally {
    await receiver.close();
  }
});

test('the delivery log turns a pending delivery succeeded while it is open, without a reload', async ({ page, partnerApi }) => {
  const receiver = await startReceiver();
  try {
    const hook = await partnerApi.post('/partner/webhooks', { url: `${receiver.url}/log`, event_filters: ['webhook.test'] });
    await signIn(page);
    receiver.hold();
    const event = await partnerApi.post(`/partner/webhooks/${hook.id}/test`, {}, 202);
    await expect.poll(() => receiver.held, { message: 'the test event held in flight' }).toBe(1);

    await page.goto(`/deliveries?subscriptionId=${hook.id}`);
    const log = page.getByRole('table', { name: /Deliveries, newest first/ });
    const row = log.getByRole('row').filter({ hasText: event.id });
    await expect(row).toContainText('pending');

    receiver.release();
    await expect(row).toContainText('succeeded');
    await expect(row).toContainText('200');
    await expect(row).not.toContainText('pending');
  } finally {
    await receiver.close();
  }
});

test('an order’s timeline follows a sandbox scenario’s moves while it is open, without a reload', async ({ page, partnerApi }) => {
  await signIn(page);
  const order = await partnerApi.newOrder({ simulation: { scenario: 'happy_path', step_seconds: 3 } });
  await page.goto(`/orders/${order.id}`);
  await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
  const status = page.getByTestId('order-status');
  await expect(status).not.toHaveText('delivered');
  // Five steps, one every 3 s: each move read as it happens, its event shown on the newest page.
  await expect(status).toHaveText('delivered', { timeout: 30_000 });
  await expect(page.getByRole('heading', { name: /order\.delivered/ })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Status history' }).getByRole('listitem')).toHaveCount(6);
});
