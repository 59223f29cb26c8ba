import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { createPartner } from '@/server/partners/create';
import { call } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { NYC, startTestService, TEST_ENCRYPTION_KEY, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

// `credentials issue --email` and `credentials resend` as operators run them: a child process over a
// running service's database, whose worker sends the mail to a real SMTP server here.

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let svc: TestService;
beforeAll(async () => {
  smtp = await startSmtpServer();
  svc = await startTestService({ SMTP_URL: smtp.url, CREDENTIAL_CACHE_TTL_MS: '0' });
});
afterAll(() => smtp.close());

function admin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: svc.databaseUrl, SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
  delete env.DATA_DIR;
  delete env.LOG_LEVEL;
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['server/boot/admin.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function linkTo(email: string, nth: number): Promise<string> {
  const mail = await waitFor(`hand-over mail ${nth} to ${email}`, () => smtp.received.filter((m) => m.to.includes(email))[nth - 1]);
  return /\/handover\/([\w-]+)/.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!;
}

const open = (token: string) => call('POST', `/api/handover/${token}`, { baseUrl: svc.url, headers: {} });

describe('admin CLI hand-over', () => {
  it('issue --email prints the client id and where the link went, never the key; resend sends a new one', async () => {
    const partner = await createPartner({ ctx: cliContext(svc.rt), input: { name: 'CLI Handover Co' } });
    const issued = await admin(['credentials', 'issue', '--partner', partner.id, '--env', 'sandbox', '--email', 'dev@cli.example']);
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stdout).toMatch(/client_id: ci_\w+ {2}handed over to dev@cli\.example/);
    expect(issued.stdout).not.toContain('sk_sandbox_');
    const clientId = /client_id: (ci_\w+)/.exec(issued.stdout)![1]!;
    const first = await linkTo('dev@cli.example', 1);

    const resent = await admin(['credentials', 'resend', '--client-id', clientId, '--json']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(JSON.parse(resent.stdout)).toMatchObject({ client_id: clientId, handed_over_to: 'dev@cli.example', key_replaced: false });
    expect((await open(first)).body.error.code).toBe('handover_replaced');
    const shown = await open(await linkTo('dev@cli.example', 2));
    expect(shown.status).toBe(200);
    const partnerCall = {
      baseUrl: svc.url,
      headers: { 'x-client-id': clientId, 'x-api-key': shown.body.api_key, 'content-type': 'application/json' },
    };
    expect((await call('POST', '/partner/quotes', partnerCall, NYC)).status).toBe(201);

    const bad = await admin(['credentials', 'issue', '--partner', partner.id, '--env', 'sandbox', '--email', 'nope']);
    expect(bad.code).toBe(2);
  });
});
