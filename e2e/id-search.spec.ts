import type { Page } from '@playwright/test';
import { expect, test } from './partner-api';
import { operatorApi, signIn, snapshot } from './console';
import { startReceiver } from './receiver';

// Support is handed ids in tickets: each kind pasted into the header's box opens its object (or the list
// filtered to it), an external id two partners use lists both orders, a request id opens the order it
// created or shows the error it got, and anything else says plainly that nothing matches.

/** Pastes `text` into the header's box and presses Enter. */
async function find(page: Page, text: string): Promise<void> {
  const box = page.getByRole('searchbox', { name: 'Find by id' });
  await box.fill(text);
  await box.press('Enter');
}

/** A partner of the spec's own, with a sandbox credential: the demo partner's data is shared with other specs. */
async function newPartner(page: Page, name: string) {
  const { createPartner } = await operatorApi(page, 'mutation($name: String!) { createPartner(name: $name) { id } }', { name });
  const { issueCredential } = await operatorApi(
    page,
    'mutation($id: ID!) { issueCredential(partnerId: $id, environment: sandbox) { clientId key } }',
    { id: createPartner.id },
  );
  return { id: createPartner.id as string, clientId: issueCredential.clientId as string, apiKey: issueCredential.key as string };
}

test('every kind of id pasted into the header opens its object; an unknown one says nothing matches', async ({
  page,
  partnerApi,
  browser,
}) => {
  test.setTimeout(120_000);
  await signIn(page);
  const run = Date.now();
  const partner = await newPartner(page, `Id Search ${run}`);
  const other = await newPartner(page, `Id Search Other ${run}`);
  const api = partnerApi.as(partner);
  const receiver = await startReceiver();
  try {
    const hook = await api.post('/partner/webhooks', { url: `${receiver.url}/ids`, event_filters: ['order.created'] });
    const quote = await api.post('/partner/quotes', { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } });
    const created = await api.send('POST', '/partner/orders', { quote_id: quote.id, external_id: `ticket-${run}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const order = created.body;
    await partnerApi.as(other).newOrder({ external_id: `ticket-${run}` });
    const own = await api.newOrder({ external_id: `own-${run}` });
    await expect.poll(() => receiver.received.length, { message: 'the receiver got both order.created' }).toBe(2);
    const eventId = receiver.received.find((r) => JSON.parse(r.body).data.object.id === order.id)!.headers['x-service-event-id'] as string;
    const deliveries = await api.send('GET', `/partner/webhooks/${hook.id}/deliveries`);
    const deliveryId = deliveries.body.data.find((d: { event_id: string }) => d.event_id === eventId).id as string;
    const replay = await api.post(`/partner/webhooks/${hook.id}/replay`, { since: Math.floor(run / 1000) - 60 }, 202);
    const failed = await api.send('POST', '/partner/orders', { quote_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(failed.status).toBe(404);

    // An order id, pasted from a ticket with its quotes and a trailing space.
    await page.goto('/');
    await find(page, ` "${order.id}" `);
    await expect(page).toHaveURL(`/orders/${order.id}`);
    await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();

    // An external id only this partner uses: its order.
    await find(page, `own-${run}`);
    await expect(page.getByRole('heading', { name: `Order ${own.id}` })).toBeVisible();

    // An external id two partners use: both orders, to choose from.
    await find(page, `ticket-${run}`);
    const answer = page.getByRole('search', { name: 'Find by id' });
    const choices = answer.getByRole('list', { name: `Objects matching ticket-${run}` });
    await expect(choices.getByRole('listitem')).toHaveCount(2);
    await expect(answer).toContainText(`2 objects match ticket-${run}`);
    await expect(choices).toContainText(`Id Search ${run}`);
    await expect(choices).toContainText(`Id Search Other ${run}`);
    await snapshot(page, 'id-search-choices', test.info());
    await choices
      .getByRole('listitem')
      .filter({ hasText: `Id Search ${run} (sandbox)` })
      .getByRole('link', { name: /^Order / })
      .click();
    await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
    await expect(choices).toHaveCount(0);

    // An event: the events list filtered to it.
    await find(page, eventId);
    await expect(page).toHaveURL(`/events?id=${eventId}`);
    await expect(page.getByRole('table', { name: /^Events/ }).getByRole('row')).toHaveCount(2);
    await expect(page.getByRole('table', { name: /^Events/ })).toContainText(eventId);

    // A delivery, a subscription, a replay (its subscription's replays), a partner, a client id.
    await find(page, deliveryId);
    await expect(page.getByRole('heading', { name: `Delivery ${deliveryId}` })).toBeVisible();
    await find(page, hook.id);
    await expect(page).toHaveURL(`/subscriptions/${hook.id}`);
    await expect(page.getByRole('heading', { name: 'Subscription health' })).toBeVisible();
    await find(page, replay.id);
    await expect(page).toHaveURL(`/replays?subscriptionId=${hook.id}`);
    await expect(page.getByRole('table', { name: /^Replays/ })).toContainText(replay.id);
    await find(page, partner.id);
    await expect(page.getByRole('heading', { level: 1, name: `Id Search ${run}` })).toBeVisible();
    await find(page, other.clientId);
    await expect(page).toHaveURL(`/partners/${other.id}#credentials`);
    await expect(page.getByRole('heading', { level: 1, name: `Id Search Other ${run}` })).toBeVisible();
    await expect(page.getByRole('table', { name: /credentials/i })).toContainText(other.clientId);

    // A request id: the order that request created; the error another one got.
    await find(page, created.requestId);
    await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
    await find(page, failed.body.error.request_id);
    await expect(answer).toContainText(`Failed request ${failed.requestId}`);
    await expect(answer).toContainText(`POST /partner/orders: 404 ${failed.body.error.code}`);
    await expect(answer).toContainText(failed.body.error.message);
    await snapshot(page, 'id-search-failed-request', test.info());

    // Nonsense, and an id of nothing.
    await find(page, `nonsense-${run}`);
    await expect(answer.getByText(`Nothing matches nonsense-${run}`)).toBeVisible();
    await find(page, '01ARZ3NDEKTSV4RRFFQ69G5FAV');
    await expect(answer.getByText('Nothing matches 01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeVisible();
    await expect(page.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();

    // Support finds the same.
    const email = `support-ids-${run}@example.com`;
    const { createOperator } = await operatorApi(
      page,
      'mutation($email: String!) { createOperator(email: $email, role: support) { generatedPassword } }',
      { email },
    );
    const context = await browser.newContext();
    const theirs = await context.newPage();
    await signIn(theirs, email, createOperator.generatedPassword);
    await find(theirs, order.id.toLowerCase());
    await expect(theirs.getByRole('heading', { name: `Order ${order.id}` })).toBeVisible();
    await context.close();
  } finally {
    await receiver.close();
  }
});
