import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { loggedPath } from '@/server/http/logged-path';
import { createPartner } from '@/server/partners/create';
import { captureLogs } from '../support/logs';
import { createTestOperator, gqlData } from '../support/operator-api';
import { call } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

// A one-time token (a hand-over link, an access confirmation) opens something once: whoever reads it
// in a log line, a metric label or an error message before its owner uses it can use it instead.

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let svc: TestService;
const logs = captureLogs('debug');

beforeAll(async () => {
  smtp = await startSmtpServer();
  svc = await startTestService({ SMTP_URL: smtp.url, LOG_LEVEL: 'debug' }, { log: logs.log });
  return () => smtp.close();
});

async function tokenMailedTo(email: string, pattern: RegExp): Promise<string> {
  const mail = await waitFor(`mail to ${email}`, () => smtp.received.find((m) => m.to.includes(email)));
  return pattern.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!;
}

describe('one-time tokens', () => {
  it('appear in no log line, metric label or error message, from the mail to the reveal', { timeout: 60_000 }, async () => {
    const admin = await createTestOperator(svc, 'admin');
    const partner = await createPartner({ ctx: cliContext(svc.rt), input: { name: 'Token Logs Co' } });
    await gqlData(
      admin,
      `mutation($p: ID!) { issueCredential(partnerId: $p, environment: sandbox, email: "dev@tokens.example") { clientId } }`,
      {
        p: partner.id,
      },
    );
    const handover = await tokenMailedTo('dev@tokens.example', /\/handover\/([\w-]+)/);

    const request = await call(
      'POST',
      '/partner/access-requests',
      { baseUrl: svc.url, headers: { 'content-type': 'application/json' } },
      {
        company: 'Token Logs Two',
        contact_name: 'Dana',
        contact_email: 'dana@tokens.example',
        use_case: 'deliveries',
      },
    );
    expect(request.status, request.text).toBe(202);
    const confirm = await tokenMailedTo('dana@tokens.example', /\/access\/confirm\/([\w-]+)/);

    const anyone = { baseUrl: svc.url, headers: {} };
    // What the page and its visitors do: the status on load, the page itself, the reveal, and again after.
    const replies = [
      await call('GET', `/api/handover/${handover}`, anyone),
      await call('GET', `/handover/${handover}`, anyone),
      await call('POST', `/api/handover/${handover}`, anyone),
      await call('POST', `/api/handover/${handover}`, anyone),
      await call('GET', `/api/handover/${handover}x`, anyone),
      await call(
        'POST',
        '/partner/access-requests/confirm',
        { baseUrl: svc.url, headers: { 'content-type': 'application/json' } },
        { token: confirm },
      ),
      await call(
        'POST',
        '/partner/access-requests/confirm',
        { baseUrl: svc.url, headers: { 'content-type': 'application/json' } },
        { token: confirm },
      ),
    ];
    const metrics = await fetch(`${svc.url}/metrics`).then((r) => r.text());

    const text = logs.lines.join('');
    expect(text).toMatch(/\/api\/handover\/\[redacted\]/);
    console.log(`[one-time tokens] ${logs.lines.length} log lines searched, ${replies.length} requests with the tokens`);
    for (const token of [handover, confirm]) {
      expect(text).not.toContain(token);
      expect(metrics).not.toContain(token);
      for (const reply of replies) expect(reply.text).not.toContain(`${token}`);
    }
  });

  it('are recognised by shape in any path, and ids are not', () => {
    expect(loggedPath('http://x/api/handover/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde?x=1')).toBe('/api/handover/[redacted]');
    expect(loggedPath('http://x/partner/orders/01JH0000000000000000000000/simulate')).toBe(
      '/partner/orders/01JH0000000000000000000000/simulate',
    );
    expect(loggedPath('http://x/partner/credentials/ci_01JH0000000000000000000000')).toBe(
      '/partner/credentials/ci_01JH0000000000000000000000',
    );
  });

  it('redact every segment of 32 characters or more, wherever it is in the path (and leave a path without one as it is)', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), (segments, trailingSlash) => {
        const path = `/${segments.join('/')}${trailingSlash ? '/' : ''}`;
        const expected = path
          .split('/')
          .map((s) => (s.length >= 32 ? '[redacted]' : s))
          .join('/');
        expect(loggedPath(path)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
