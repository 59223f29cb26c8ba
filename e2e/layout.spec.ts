import type { Page } from '@playwright/test';
import { expect, test, type PartnerApi } from './partner-api';
import { operatorApi, signIn, snapshot } from './console';

// Issue 24: the console on a 1280 px screen. The header on one row with room for a search box, no page
// scrolling sideways and no table wider than its place, the deliveries log with every column in view,
// partners named rather than numbered, short ids with copy buttons, and a revoke button that says "Revoke".

const WIDTH = 1280;
test.use({ viewport: { width: WIDTH, height: 800 } });

// A receiver URL as long as partners' real ones (one per seed): nobody listens on port 1, so every attempt fails.
const longUrl = () => `https://127.0.0.1:1/webhooks/partner-delivery-platform/order-events/v2/receiver?tenant=layout-check-${Date.now()}`;

interface Fixture {
  url: string;
  partnerId: string;
  partnerName: string;
  clientId: string;
  subscriptionId: string;
  orderId: string;
  deliveryId: string;
}

/** A partner of the spec's own, with a failing subscription, an order, its delivery and a replay. */
async function seed(page: Page, partnerApi: PartnerApi): Promise<Fixture> {
  const partnerName = `Layout Couriers ${Date.now()}`;
  const { createPartner } = await operatorApi(page, 'mutation($name: String!) { createPartner(name: $name) { id } }', {
    name: partnerName,
  });
  const { issueCredential } = await operatorApi(
    page,
    'mutation($id: ID!) { issueCredential(partnerId: $id, environment: sandbox) { clientId key } }',
    { id: createPartner.id },
  );
  const api = partnerApi.as({ clientId: issueCredential.clientId, apiKey: issueCredential.key });
  const url = longUrl();
  const hook = await api.post('/partner/webhooks', { url, event_filters: ['order.created'] });
  const order = await api.newOrder({ external_id: `layout-${Date.now()}` });
  // The first attempt fails (connection refused): the subscription is failing from then on.
  await expect
    .poll(
      async () => {
        const { overview } = await operatorApi(page, '{ overview { failingSubscriptions { id } } }');
        return overview.failingSubscriptions.some((s: { id: string }) => s.id === hook.id);
      },
      { message: 'the subscription is failing', timeout: 30_000 },
    )
    .toBe(true);
  const { deliveries } = await operatorApi(
    page,
    'query($id: ID!) { deliveries(filter: { subscriptionId: $id }, first: 1) { nodes { id } } }',
    {
      id: hook.id,
    },
  );
  await operatorApi(page, 'mutation($id: ID!, $since: DateTimeISO!) { startReplay(webhookId: $id, since: $since) { matched } }', {
    id: hook.id,
    since: new Date(Date.now() - 3_600_000).toISOString(),
  });
  return {
    url,
    partnerId: createPartner.id,
    partnerName,
    clientId: issueCredential.clientId,
    subscriptionId: hook.id,
    orderId: order.id,
    deliveryId: deliveries.nodes[0].id,
  };
}

/** Waits for the page's data: its heading, and nothing still marked busy. */
async function settled(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}

/** Nothing scrolls sideways, every <details> open: not the page, and no table past the box it sits in. */
async function expectNoOverflow(page: Page, path: string) {
  const found = await page.evaluate(() => {
    for (const details of document.querySelectorAll('main details')) (details as HTMLDetailsElement).open = true;
    return {
      page: { scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth },
      tables: [...document.querySelectorAll('main table')]
        .filter((t) => t.checkVisibility())
        .map((t) => ({
          name: t.querySelector('caption')?.textContent ?? t.getAttribute('aria-label') ?? t.className,
          width: Math.round(t.getBoundingClientRect().width),
          room: t.parentElement!.clientWidth,
        })),
    };
  });
  expect(found.page.scrollWidth, `${path} scrolls sideways`).toBeLessThanOrEqual(found.page.clientWidth);
  for (const t of found.tables) expect(t.width, `${path}: the table "${t.name}" is wider than its place`).toBeLessThanOrEqual(t.room + 1);
}

/** The header's items side by side on one row, within the window. */
async function expectOneRow(page: Page, path: string) {
  const items = await page.locator('header.console-header > *').evaluateAll((els) =>
    els
      .filter((e) => e.getClientRects().length > 0)
      .map((e) => {
        const r = e.getBoundingClientRect();
        return {
          tag: e.tagName,
          top: Math.round(r.top),
          bottom: Math.round(r.bottom),
          left: Math.round(r.left),
          right: Math.round(r.right),
        };
      }),
  );
  const lowestTop = Math.max(...items.map((i) => i.top));
  const highestBottom = Math.min(...items.map((i) => i.bottom));
  expect(lowestTop, `${path}: the header wraps (${JSON.stringify(items)})`).toBeLessThan(highestBottom);
  expect(Math.max(...items.map((i) => i.right)), `${path}: the header runs past the window`).toBeLessThanOrEqual(WIDTH);
  const height = await page.locator('header.console-header').evaluate((h) => h.getBoundingClientRect().height);
  expect(height, `${path}: the header is ${height} px high`).toBeLessThanOrEqual(64);
}

/** The header is one row, and stays one with a 16rem search box after the navigation (put there for the check until the console has one). */
async function expectHeaderOneRow(page: Page, path: string) {
  await expectOneRow(page, path);
  const header = page.locator('header.console-header');
  if ((await header.getByRole('search').count()) > 0) return;
  await header.locator('nav').evaluate((nav) => {
    const probe = document.createElement('form');
    probe.setAttribute('role', 'search');
    probe.className = 'layout-probe';
    probe.innerHTML = '<input aria-label="Find by id" style="width: 16rem; box-sizing: border-box">';
    nav.after(probe);
  });
  await expectOneRow(page, `${path} with a search box`);
  await header.locator('.layout-probe').evaluate((probe) => probe.remove());
}

test('every console page fits 1280 px: no sideways scrolling, no table past its place, the header on one row', async ({
  page,
  partnerApi,
}) => {
  test.setTimeout(180_000);
  await signIn(page);
  const f = await seed(page, partnerApi);
  const pages = [
    '/',
    '/partners',
    `/partners/${f.partnerId}`,
    '/access-requests',
    '/deliveries',
    `/deliveries/${f.deliveryId}`,
    `/deliveries?subscriptionId=${f.subscriptionId}`,
    '/events',
    '/orders',
    `/orders/${f.orderId}`,
    '/replays',
    `/subscriptions/${f.subscriptionId}`,
    '/operators',
    '/audit',
    '/outbox',
    '/account',
  ];
  for (const path of pages) {
    await settled(page, path);
    await expectHeaderOneRow(page, path);
    await expectNoOverflow(page, path);
    await snapshot(page, `at-1280${path.replace(/[/?=]/g, '-')}`, test.info());
  }
});

test('the deliveries log at 1280 px: every column in view, the partner by name, short ids that copy the whole id', async ({
  page,
  partnerApi,
}) => {
  test.setTimeout(120_000);
  await signIn(page);
  const f = await seed(page, partnerApi);
  await settled(page, `/deliveries?subscriptionId=${f.subscriptionId}`);
  const log = page.getByRole('table', { name: /Deliveries, newest first/ });
  await expect(log.getByRole('columnheader', { name: 'Order' })).toBeInViewport({ ratio: 1 });
  const row = log.getByRole('row').filter({ has: page.getByRole('link', { name: `Open delivery ${f.deliveryId}` }) });
  await expect(row.getByRole('link', { name: f.orderId })).toBeInViewport({ ratio: 1 });
  await expect(row).toContainText(f.partnerName);
  // The URL wraps onto lines of its own column, at its slashes and query separators: no piece of it is split.
  const url = row.getByRole('link', { name: f.url });
  await expect(url).toBeVisible();
  const lines = await url.evaluate((link) => {
    const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
    const rects: number[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      rects.push(new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size);
    }
    return rects;
  });
  expect(lines.length, 'the URL has places to break').toBeGreaterThan(1);
  expect(
    lines.every((n) => n === 1),
    `a piece of the URL is split across lines: ${JSON.stringify(lines)}`,
  ).toBe(true);

  // The delivery's id shown short (its last 8 characters), the whole id in the link's name and the copy button's.
  const open = row.getByRole('link', { name: `Open delivery ${f.deliveryId}` });
  await expect(open.locator('[aria-hidden="true"]')).toHaveText(`…${f.deliveryId.slice(-8)}`);
  await expect(open.locator('code')).toHaveAttribute('title', f.deliveryId);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await row.getByRole('button', { name: `Copy ${f.deliveryId}` }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(f.deliveryId);
});

test('the overview names a failing subscription’s partner, and a revoke button says only "Revoke"', async ({ page, partnerApi }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const f = await seed(page, partnerApi);
  await settled(page, '/');
  const failing = page.getByRole('table', { name: /whose attempts fail/ });
  const row = failing.getByRole('row').filter({ has: page.getByRole('link', { name: f.url }) });
  await expect(row).toContainText(f.partnerName);
  await expect(row.getByRole('link', { name: f.partnerName })).toHaveAttribute('href', `/partners/${f.partnerId}`);

  await settled(page, `/partners/${f.partnerId}`);
  const revoke = page.getByRole('button', { name: `Revoke ${f.clientId}` });
  await expect(revoke).toHaveText('Revoke');
  const box = (await revoke.boundingBox())!;
  expect(box.height, 'the revoke button is one line').toBeLessThan(40);
  expect(box.width, 'the revoke button is short').toBeLessThan(100);
});
