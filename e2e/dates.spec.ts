import type { Page } from '@playwright/test';
import { expect, test } from './partner-api';
import { operatorApi, signIn, snapshot } from './console';

// Issue 24: times follow the operator's browser. Shown in its language's order and its time zone, the zone
// named; typed in the same order and zone (named beside the field), and sent to the API as that instant.

interface Operator {
  locale: string;
  timezoneId: string;
  /** What the browser shows for 2026-01-15T12:00:00Z in a time field, and what it sends for it typed. */
  january: { shown: string; typed: string; sent: string };
  /** The same in July (summer time where the zone has one). */
  july: { typed: string; sent: string };
  /** The zone as named beside a time field (Chromium still calls Kolkata by its old name). */
  zoneName: RegExp;
  /** A time cell's shape: date in the locale's order, time to the second, the zone named. */
  cell: (parts: Record<string, string>) => RegExp;
}

const OPERATORS: Operator[] = [
  {
    locale: 'en-GB',
    timezoneId: 'Europe/London',
    january: { shown: '15/01/2026, 12:00', typed: '15/01/2026 12:00', sent: '2026-01-15T12:00:00.000Z' },
    july: { typed: '15/07/2026 12:00', sent: '2026-07-15T11:00:00.000Z' },
    zoneName: /Europe\/London/,
    cell: (p) => new RegExp(`^${Number(p.day)} \\S+ ${p.year}, ${p.hour}:${p.minute}:${p.second} (GMT|BST)$`),
  },
  {
    locale: 'en-GB',
    timezoneId: 'Asia/Kolkata',
    january: { shown: '15/01/2026, 17:30', typed: '15/01/2026 17:30', sent: '2026-01-15T12:00:00.000Z' },
    july: { typed: '15/07/2026 12:00', sent: '2026-07-15T06:30:00.000Z' },
    zoneName: /Asia\/(Kolkata|Calcutta)/,
    cell: (p) => new RegExp(`^${Number(p.day)} \\S+ ${p.year}, ${p.hour}:${p.minute}:${p.second} GMT\\+5:30$`),
  },
  {
    locale: 'en-US',
    timezoneId: 'America/New_York',
    january: { shown: '01/15/2026, 07:00', typed: '01/15/2026 7:00', sent: '2026-01-15T12:00:00.000Z' },
    july: { typed: '07/15/2026 12:00', sent: '2026-07-15T16:00:00.000Z' },
    zoneName: /America\/New_York/,
    cell: (p) => new RegExp(`^\\S+ ${Number(p.day)}, ${p.year}, ${Number(p.hour) % 12 || 12}:${p.minute}:${p.second}\\s(AM|PM) (EST|EDT)$`),
  },
];

/** The filter the deliveries page sends to the operator API once `since` is `iso`. */
function sentSince(page: Page, iso: string) {
  return page.waitForRequest((r) => r.url().endsWith('/api/graphql') && r.postDataJSON()?.variables?.filter?.since === iso);
}

for (const who of OPERATORS) {
  test.describe(`an operator in ${who.timezoneId} reading ${who.locale}`, () => {
    test.use({ locale: who.locale, timezoneId: who.timezoneId });

    test('sees times in their zone and order with the zone named, and types them in the same zone', async ({ page }) => {
      await signIn(page);

      // A time the console shows: the audit entry of a partner made now, in the browser's zone and language.
      const { createPartner } = await operatorApi(page, 'mutation($name: String!) { createPartner(name: $name) { id } }', {
        name: `Dates ${who.timezoneId} ${Date.now()}`,
      });
      await page.goto(`/audit?targetId=${createPartner.id}`);
      const time = page
        .getByRole('table', { name: /Audit entries/ })
        .getByRole('row')
        .nth(1)
        .locator('time');
      const at = (await time.getAttribute('datetime'))!;
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: who.timezoneId,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
        })
          .formatToParts(new Date(at))
          .map((p) => [p.type, p.value]),
      );
      await expect(time).toHaveText(who.cell(parts));

      // A shared link's window, shown in the operator's zone and order; the zone named beside the field.
      await page.goto('/deliveries?since=2026-01-15T12:00:00.000Z');
      const from = page.getByLabel('Created from');
      await expect(from).toHaveValue(who.january.shown);
      await expect(from).toHaveAccessibleDescription(who.zoneName);
      await expect(page.getByRole('search', { name: 'Filter deliveries' })).toContainText(who.zoneName);
      await snapshot(page, `dates-${who.timezoneId.replace('/', '-')}`, test.info());

      // Typed in the operator's order, meant in their zone: the URL and the API get that instant.
      await page.goto('/deliveries');
      await from.fill(who.january.typed);
      const january = sentSince(page, who.january.sent);
      await page.getByRole('button', { name: 'Search' }).click();
      await january;
      expect(new URL(page.url()).searchParams.get('since')).toBe(who.january.sent);
      await expect(from).toHaveValue(who.january.shown);

      // In July the zone's offset may differ (summer time): the instant follows it.
      await from.fill(who.july.typed);
      const july = sentSince(page, who.july.sent);
      await page.getByRole('button', { name: 'Search' }).click();
      await july;
      expect(new URL(page.url()).searchParams.get('since')).toBe(who.july.sent);

      // A time that is not one is refused beside the field, naming the format expected.
      await from.fill('31/02/2026 10:00');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect(from).toHaveAttribute('aria-invalid', 'true');
      expect(new URL(page.url()).searchParams.get('since')).toBe(who.july.sent);
    });
  });
}

test.describe('the zone named beside a time', () => {
  test.use({ locale: 'en-GB', timezoneId: 'Europe/London' });

  test('the overview says when it refreshed, with the zone', async ({ page }) => {
    await signIn(page);
    await expect(page.getByTestId('refreshed')).toContainText(/Refreshed at \d\d:\d\d:\d\d (GMT|BST); refreshes every 10 s/);
  });
});
