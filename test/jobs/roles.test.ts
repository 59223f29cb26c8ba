import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { settle, waitFor } from '../support/poll';
import { TSX_IMPORT } from '../support/processes';
import { startTestService, TEST_ENCRYPTION_KEY, type TestService } from '../support/service';

// WORKERS=off makes a web-only process; `npm run worker` (server/boot/worker.ts) a worker-only one.
let web: TestService;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  web = await startTestService({ WORKERS: 'off' });
});
afterAll(() => {
  worker?.kill('SIGTERM');
});

async function jobState(id: string): Promise<string | undefined> {
  const rows = await web.rt.db.execute<{ state: string }>(sql`select state from pgboss.job where id = ${id}`);
  return rows[0]?.state;
}

describe('process roles', () => {
  it('a web-only process enqueues but does not work; a separate worker process does the job', async () => {
    await web.rt.db.execute(
      sql`insert into idempotency_keys (partner_id, environment, key, request_hash, state, expires_at) values ('p', 'sandbox', 'old', 'h', 'completed', now() - interval '1 hour')`,
    );
    const id = await web.rt.boss!.send('maintenance.purge-expired', {});
    expect(id).toBeTruthy();
    // Nothing in this process works the queue: the job stays queued.
    await settle(2500, 'to show that no worker in this process picks the job up');
    expect(await jobState(id!)).toBe('created');

    worker = spawn(process.execPath, [...TSX_IMPORT, 'server/boot/worker.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: web.databaseUrl,
        SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        LOG_LEVEL: 'warn',
        SEED_DEMO: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(
      await waitFor('the worker process to complete the job', () => jobState(id!), {
        until: (s) => s === 'completed',
        timeoutMs: 20_000,
        intervalMs: 100,
      }),
    ).toBe('completed');
    const left = await web.rt.db.execute(sql`select 1 from idempotency_keys where key = 'old'`);
    expect(left.length).toBe(0);
  });
});
