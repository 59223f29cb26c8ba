import { expect, type Page } from '@playwright/test';

/** Signs in through /login as the demo admin (what npm start printed), or as another operator. */
export async function signIn(
  page: Page,
  email = process.env.E2E_OPERATOR_EMAIL!,
  password = process.env.E2E_OPERATOR_PASSWORD!,
): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByLabel('Signed in as')).toContainText(email);
}

/** Opens the header's account menu (Change password, Sign out). */
export async function openAccountMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Account: / }).click();
}

/** A screenshot of the page as it is now, kept with the test's artifacts (test-results/e2e). */
export async function snapshot(page: Page, name: string, info: { outputPath(name: string): string }): Promise<void> {
  await page.screenshot({ path: info.outputPath(`${name}.png`), fullPage: true });
}

/** The operator API as the signed-in browser calls it (its session cookie): the data, errors failing the test. */
export async function operatorApi(page: Page, query: string, variables: Record<string, unknown> = {}) {
  const res = await page.request.post('/api/graphql', { data: { query, variables } });
  const body = await res.json();
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}
