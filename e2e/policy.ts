import type { Page } from '@playwright/test';

/**
 * Records the page's Content-Security-Policy violations (the event, and Chromium's console message), from the
 * next navigation on; the returned function reads them so far.
 */
export async function recordViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const fromConsole: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) fromConsole.push(m.text());
  });
  return async () => [...fromConsole, ...(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations))];
}
