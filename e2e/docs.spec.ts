import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './partner-api';
import { recordViolations } from './policy';

// /docs in Chromium, as a partner opens it: no sign-in; every operation of the OpenAPI document and every guide
// of docs/guides/ is on the page; nothing is asked of another origin and the page's policy blocks nothing it
// needs; the version selector shows each version's reference. What to look for comes from the document and the
// files, not from the page's code.

const GUIDES_DIR = path.resolve(import.meta.dirname, '../docs/guides');
const guideTitles = readdirSync(GUIDES_DIR)
  .filter((f) => f.endsWith('.md'))
  .map((f) => /^# (.+)$/m.exec(readFileSync(path.join(GUIDES_DIR, f), 'utf8'))![1]!);

// The one refusal the page may cause: zod, inside Scalar's bundle, probes whether it may compile validators
// (`Function('')` in a try) and, refused, validates without. Anything else blocked fails the spec.
const EVAL_PROBE = 'script-src eval';

// The first render is a few seconds of Chromium's main thread; on this shared 2-core machine under load it was
// 10-45 s (server/http/docs-site.ts).
const FIRST_RENDER_MS = 90_000;
test.describe.configure({ timeout: 240_000 });

interface Operation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}

type Document = { paths: Record<string, Record<string, { operationId: string; summary: string }>> };

function operationsOf(document: Document): Operation[] {
  return Object.entries(document.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method,
      path: p,
      operationId: op.operationId,
      summary: op.summary,
    })),
  );
}

/** Opens /docs (with `query`), refusing and recording any request to another origin, once the sidebar shows. */
async function openDocs(page: Page, origin: string, query = ''): Promise<string[]> {
  const foreign: string[] = [];
  await page.route(
    (url) => url.origin !== origin,
    (route) => {
      foreign.push(route.request().url());
      return route.abort();
    },
  );
  await page.goto(`/docs${query}`);
  await expect(sidebar(page)).toBeVisible({ timeout: FIRST_RENDER_MS });
  return foreign;
}

const sidebar = (page: Page) => page.locator('aside[aria-label^="Sidebar for"]');

test('/docs shows every operation of the OpenAPI document and every guide, from this service alone', async ({ page, request, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const document = await (await request.get('/partner/openapi.json')).json();
  const operations = operationsOf(document);
  expect(operations.length).toBeGreaterThan(30);
  expect(guideTitles.length).toBeGreaterThan(10);

  const violations = await recordViolations(page);
  const foreign = await openDocs(page, origin);
  const version = document.info.version as string;
  // For the README: what a partner sees first.
  await page.screenshot({ path: test.info().outputPath('docs.png') });

  // Every guide: an entry of the sidebar, and its heading on the page.
  const guideEntries = await sidebar(page).locator(`a[href^="#${version}/description/"]`).allTextContents();
  const headings = await page.locator('h1').allTextContents();
  for (const title of guideTitles) {
    expect(
      guideEntries.map((t) => t.trim()),
      title,
    ).toContain(title);
    expect(
      headings.map((t) => t.trim()),
      title,
    ).toContain(title);
  }
  // Every operation, aliases included: its sidebar entry (by method and path) under its summary, once the
  // sidebar's groups are opened (tags open one at a time; opening them from their toggles renders no content).
  const collapsed = sidebar(page).locator('button[aria-expanded="false"]');
  for (let i = 0; i < 100 && (await collapsed.count()) > 0; i++) await collapsed.first().click();
  const entries = await sidebar(page)
    .locator(`a[href^="#${version}/tag/"]`)
    .evaluateAll((links) => links.map((a) => [a.getAttribute('href')!, a.textContent ?? ''] as const));
  for (const op of operations) {
    const found = entries.filter(([href]) => href.endsWith(`/${op.method.toUpperCase()}${op.path}`));
    expect(found, `${op.method} ${op.path} (${op.operationId})`).toHaveLength(1);
    expect(found[0]![1], `${op.method} ${op.path} (${op.operationId})`).toContain(op.summary);
  }
  // A link from one guide to another (quick-start.md's to webhooks.md) lands on the guide it names.
  await page.locator(`a[href="#${version}/description/receiving-webhooks"]:not(aside a)`).first().click();
  await expect(page).toHaveURL(new RegExp(`#${version}/description/receiving-webhooks$`));
  await expect(page.getByRole('heading', { name: 'Receiving webhooks', level: 1 })).toBeInViewport();

  expect(foreign).toEqual([]);
  expect((await violations()).filter((v) => v !== EVAL_PROBE)).toEqual([]);
});

test('/docs?version= opens that version, and the selector switches to another', async ({ page, partnerApi, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const { body } = await partnerApi.send('GET', '/partner/versions');
  const versions = (body.data as { id: string; latest: boolean }[]).map((v) => v.id);
  const [latest, oldest] = [versions[0]!, versions.at(-1)!];
  expect(versions.length).toBeGreaterThan(1);

  const foreign = await openDocs(page, origin, `?version=${oldest}`);
  const selector = sidebar(page).getByRole('button', { name: new RegExp(`^${oldest}`) });
  await expect(selector).toBeVisible();
  await expect(page.getByText(`v${oldest}`, { exact: true })).toBeVisible();

  await selector.click();
  await expect(page.getByRole('option')).toHaveText(versions.map((v) => (v === latest ? `${v} (latest)` : v)));
  await page.getByRole('option', { name: `${latest} (latest)` }).click();
  await expect(page.getByText(`v${latest}`, { exact: true })).toBeVisible();
  // The changelog is on the page, every version under its own heading.
  for (const version of versions) await expect(page.getByRole('heading', { name: new RegExp(`^${version}`), level: 3 })).toBeAttached();
  expect(foreign).toEqual([]);
});
