import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedHandle } from '@/db/embedded/start';
import { runMigrations } from '@/db/migrate';
import { loadEnv } from '@/server/config/env';
import { startProcess, type RunningProcess } from '@/server/boot/start-process';
import { call, type Caller } from '../support/partner-api';
import { msUntil, waitFor, type WaitOptions } from '../support/poll';
import { createTestPartner, TEST_ENCRYPTION_KEY, NYC, type TestPartner } from '../support/service';

// A database outage under a running service: this file runs its own embedded Postgres, stops it
// while the service keeps running, and starts it again on the same data directory and port.

let dir: string;
let pg: EmbeddedHandle | undefined;
let port: number;
let svc: RunningProcess;
let url: string;
let cached: TestPartner;
let uncached: TestPartner;
let unseen: TestPartner;
let frozen: number[] = [];
const unhandled: unknown[] = [];
const MISSING = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  dir = await mkdtemp(path.join(tmpdir(), 'pdp-outage-'));
  await chmod(dir, 0o755);
  pg = await startEmbeddedPostgres({ dataDir: dir });
  port = Number(new URL(pg.url).port);
  await runMigrations(pg.url);
  const env = loadEnv({
    ...process.env,
    DATABASE_URL: pg.url,
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PORT: '0',
    CONSOLE: 'off',
    SEED_DEMO: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WORKERS: 'on',
  });
  svc = await startProcess(env, { web: true, workers: true });
  url = svc.url!;
  cached = await createTestPartner(svc);
  uncached = await createTestPartner(svc);
  unseen = await createTestPartner(svc);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  signal(frozen, 'SIGCONT');
  await svc?.stop();
  await pg?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Timed {
  status: number;
  ms: number;
  contentType: string | null;
  json: unknown;
}

/** One timed request (a GET without credentials unless told), with a hard client-side limit so that a hanging server fails the test instead of stalling it. */
async function timed(pathname: string, who: Caller = { baseUrl: url, headers: {} }, method = 'GET', body?: unknown): Promise<Timed> {
  const started = performance.now();
  const res = await call(method, pathname, who, body, { timeoutMs: 15_000 });
  return { status: res.status, ms: performance.now() - started, contentType: res.headers.get('content-type'), json: res.body };
}

const quote = (p: TestPartner) => timed('/partner/quotes', p, 'POST', NYC);

/** Waiting for recovery: an error meanwhile (the database still coming back) counts as not yet. */
const recovering: WaitOptions = { intervalMs: 100, ignoreErrors: true };

/** The postmaster of this file's Postgres and all its children (backends, checkpointer, ...). */
function postgresPids(): number[] {
  const postmaster = Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after the last ')'.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone already
    }
  }
}

function expectUnavailable(r: Timed): void {
  expect(r.status).toBe(503);
  expect(r.contentType).toMatch(/^application\/json/);
  expect(r.json).toMatchObject({ error: { type: 'api_error', code: 'service_unavailable', request_id: expect.stringMatching(/^req_/) } });
}

describe('database outage', () => {
  it('answers 503 quickly while Postgres is down and recovers by itself once it is back', async () => {
    // Up: a quote succeeds, which caches `cached`'s credential. `uncached` is never used before the outage.
    const first = await quote(cached);
    expect(first.status).toBe(201);
    const quoteId = (first.json as { id: string }).id;
    expect((await timed('/readyz')).status).toBe(200);

    await pg!.stop();
    pg = undefined;
    const downAt = performance.now();

    // A cached credential: the request still needs the database (rate-limit lease, the quote) → 503.
    const post = await quote(cached);
    expectUnavailable(post);
    expect(post.ms).toBeLessThan(5500);

    // A credential this process has not seen: the failed lookup is a 503, never a 401.
    const get = await timed(`/partner/quotes/${quoteId}`, uncached);
    expectUnavailable(get);
    expect(get.ms).toBeLessThan(5500);

    const ready = await timed('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(3000);
    const health = await timed('/healthz');
    expect(health.status).toBe(200);

    // Stay down for a while (the credential cache TTL passes, pg-boss keeps failing) and ask again.
    const repeated: Timed[] = [];
    while (performance.now() - downAt < 4000) {
      repeated.push(await quote(cached), await timed(`/partner/quotes/${quoteId}`, uncached));
    }
    for (const r of repeated) expectUnavailable(r);
    const worst = Math.max(post.ms, get.ms, ...repeated.map((r) => r.ms));
    // A refused connection fails fast: well inside the request deadline, not at it (postgres.js's
    // default reconnect backoff, up to 20 s, used to hold requests until the 5 s deadline).
    expect(worst).toBeLessThan(2500);
    expect((await timed('/healthz')).status).toBe(200);

    // Back on the same data directory and port; the service must recover without a restart.
    pg = await startEmbeddedPostgres({ dataDir: dir, port });
    expect(Number(new URL(pg.url).port)).toBe(port);
    const upAt = performance.now();
    const quotesBack = await msUntil('quotes to succeed again', async () => (await quote(cached)).status === 201, {
      ...recovering,
      timeoutMs: 10_000,
    });
    const readyBack = await msUntil('/readyz to be 200 again', async () => (await timed('/readyz')).status === 200, {
      ...recovering,
      timeoutMs: 10_000 - quotesBack,
    });
    // The credential first seen during the outage was not remembered as unknown.
    const later = await quote(uncached);
    expect(later.status).toBe(201);
    const recovered = performance.now() - upAt;
    expect(recovered).toBeLessThan(10_000);
    // The job queue recovered too: a job enqueued now is worked by this process's workers.
    const jobId = await svc.rt.boss!.send('maintenance.purge-expired', {});
    expect(jobId).toBeTruthy();
    const jobDone = await msUntil(
      'a job to be worked after the outage',
      async () =>
        (await svc.rt.db.execute<{ state: string }>(sql`select state from pgboss.job where id = ${jobId}`))[0]?.state === 'completed',
      { ...recovering, timeoutMs: 15_000 },
    );

    console.info(
      `[db-outage] first 503 (cached key) ${post.ms.toFixed(0)} ms, first 503 (uncached key) ${get.ms.toFixed(0)} ms, ` +
        `/readyz 503 in ${ready.ms.toFixed(0)} ms, worst 503 of ${repeated.length + 2} during outage ${worst.toFixed(0)} ms; ` +
        `recovery after restart: quotes ${quotesBack.toFixed(0)} ms, /readyz ${(quotesBack + readyBack).toFixed(0)} ms, ` +
        `a job enqueued after recovery completed in ${jobDone.toFixed(0)} ms`,
    );
    expect(unhandled).toEqual([]);
  });

  it('answers 503 at the request deadline when Postgres accepts connections but stops answering', async () => {
    expect((await quote(cached)).status).toBe(201);
    // SIGSTOP every Postgres process: sockets stay open and new TCP connections are accepted by the
    // kernel, but nothing answers. Only timeouts can end a request now.
    frozen = postgresPids();
    signal(frozen, 'SIGSTOP');
    const frozenAt = performance.now();
    try {
      const [post, get, ready, health] = await Promise.all([
        quote(cached),
        timed(`/partner/quotes/${MISSING}`, unseen),
        timed('/readyz'),
        timed('/healthz'),
      ]);
      expectUnavailable(post);
      expectUnavailable(get);
      expect(ready.status).toBe(503);
      expect(health.status).toBe(200);
      expect(health.ms).toBeLessThan(1000);
      // REQUEST_TIMEOUT_MS (5000 by default) bounds every partner request; /readyz gives up after 2 s.
      expect(post.ms).toBeLessThan(5500);
      expect(get.ms).toBeLessThan(5500);
      expect(ready.ms).toBeLessThan(3000);
      console.info(
        `[db-outage] frozen Postgres: POST /partner/quotes 503 in ${post.ms.toFixed(0)} ms, GET (uncached key) 503 in ${get.ms.toFixed(0)} ms, ` +
          `/readyz 503 in ${ready.ms.toFixed(0)} ms, /healthz 200 in ${health.ms.toFixed(0)} ms (frozen for ${(performance.now() - frozenAt).toFixed(0)} ms)`,
      );
    } finally {
      signal(frozen, 'SIGCONT');
      frozen = [];
    }
    const thawedAt = performance.now();
    await waitFor('quotes to succeed after the thaw', async () => (await quote(cached)).status === 201, {
      ...recovering,
      timeoutMs: 10_000,
    });
    await waitFor('/readyz to be 200 after the thaw', async () => (await timed('/readyz')).status === 200, {
      ...recovering,
      timeoutMs: 10_000,
    });
    // The key first seen while frozen authenticates now (404: no such quote, rather than 401).
    expect((await timed(`/partner/quotes/${MISSING}`, unseen)).status).toBe(404);
    console.info(`[db-outage] frozen Postgres: recovered ${(performance.now() - thawedAt).toFixed(0)} ms after SIGCONT`);
    expect(unhandled).toEqual([]);
  });
});
