import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { signIn } from './console';
import { recordViolations } from './policy';

// The console cannot be framed by another site, runs only the scripts it was sent with (every page
// is visited with the policy on and must raise no violation), and sign-in never leaves the site.

test('every console page is sent with frame-ancestors none and X-Frame-Options, and raises no policy violation', async ({
  page,
  request,
}) => {
  for (const path of ['/', '/login', '/deliveries', '/handover/not-a-token']) {
    const res = await request.get(path, { maxRedirects: 0 });
    const headers = res.headers();
    expect(headers['x-frame-options'], path).toBe('DENY');
    expect(headers['content-security-policy'], path).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy'], path).toMatch(/script-src 'self' 'nonce-[\w+/=]+'/);
  }

  const violations = await recordViolations(page);
  await signIn(page);
  const pages: [string, string][] = [
    ['/', 'Overview'],
    ['/partners', 'Partners'],
    ['/deliveries', 'Deliveries'],
    ['/events', 'Events'],
    ['/replays', 'Replays'],
    ['/access-requests', 'Access requests'],
    ['/audit', 'Audit log'],
    ['/operators', 'Operators'],
    ['/outbox', 'Outbox'],
    ['/orders', 'Orders'],
  ];
  for (const [path, heading] of pages) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: heading, exact: true, level: 1 })).toBeVisible();
    // The operator's name comes from /api/graphql through the page's scripts: blocked, it would never show.
    await expect(page.getByLabel('Signed in as')).toContainText(process.env.E2E_OPERATOR_EMAIL!);
    expect(await violations(), path).toEqual([]);
  }
  await page.goto('/partners');
  await page.getByRole('link', { name: /demo/i }).first().click();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(await violations()).toEqual([]);
});

test('another site cannot frame the sign-in page', async ({ page, baseURL }) => {
  const framer: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>framer</title><iframe id="victim" src="${baseURL}/login" onload="document.title='loaded'"></iframe>`);
  });
  await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
  try {
    await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
    await expect(page).toHaveTitle('loaded');
    const victim = page.frames().find((f) => f !== page.mainFrame())!;
    expect(await victim.locator('text=Operator sign-in').count()).toBe(0);
    expect(victim.url()).not.toContain('/login');
  } finally {
    framer.close();
  }
});

test('sign-in never sends the operator to another host, however `next` is spelled', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  for (const next of ['/%5C127.0.0.5:8081/phish', '/%09/127.0.0.5:8081/phish', '//127.0.0.5:8081/phish']) {
    await page.context().clearCookies();
    await page.goto(`/login?next=${next}`);
    await page.getByLabel('E-mail').fill(process.env.E2E_OPERATOR_EMAIL!);
    await page.getByLabel('Password').fill(process.env.E2E_OPERATOR_PASSWORD!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    expect(new URL(page.url()).origin, next).toBe(origin);
    // Settled on the console before the next round signs out underneath it.
    await expect(page.getByLabel('Signed in as')).toBeVisible();
  }
  // A path of the site is still honoured.
  await page.context().clearCookies();
  await page.goto('/login?next=%2Fdeliveries');
  await page.getByLabel('E-mail').fill(process.env.E2E_OPERATOR_EMAIL!);
  await page.getByLabel('Password').fill(process.env.E2E_OPERATOR_PASSWORD!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${origin}/deliveries`);
});
