import { defineConfig } from '@playwright/test';

// The console in a real browser: Debian's Chromium (apt-get install -y chromium; .ci/run does), never
// a downloaded one, against a service that e2e/global-setup.ts starts exactly as `npm start` does.
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  outputDir: '../test-results/e2e',
  reporter: [['list']],
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: process.env.E2E_BASE_URL,
    screenshot: 'on',
    // The console writes times in the browser's language and zone: the suite pins both (e2e/dates.spec.ts
    // varies them), and the width the console is laid out for (e2e/layout.spec.ts).
    locale: 'en-GB',
    timezoneId: 'Europe/London',
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
