import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createDbClient } from '@/db/client';
import { waitFor } from '../support/poll';
import { createTestDatabase } from '../support/database';

// The pool gauges count what Drizzle sends: statements from await to settling, transactions for their whole life.

const client = createDbClient(await createTestDatabase(), { max: 2, connectTimeoutSeconds: 5 });
afterAll(() => client.sql.end({ timeout: 2 }));

describe('poolUsage', () => {
  it('counts statements in use up to the pool size and the rest as waiting, then none', async () => {
    expect(client.poolUsage()).toEqual({ max: 2, inUse: 0, waiting: 0 });
    // Drizzle's queries run when awaited: Promise.all starts all five.
    const sleeping = Promise.all(Array.from({ length: 5 }, () => client.db.execute(sql`select pg_sleep(0.3)`)));
    await waitFor('all five awaited', () => client.poolUsage().waiting === 3, { timeoutMs: 2000, intervalMs: 5 });
    expect(client.poolUsage()).toEqual({ max: 2, inUse: 2, waiting: 3 });
    await sleeping;
    expect(client.poolUsage()).toEqual({ max: 2, inUse: 0, waiting: 0 });
  });

  it('counts a transaction once, however many statements it runs, until it ends (committed or rolled back)', async () => {
    let inside: ReturnType<typeof client.poolUsage> | undefined;
    await client.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await tx.execute(sql`select 2`);
      inside = client.poolUsage();
    });
    expect(inside).toEqual({ max: 2, inUse: 1, waiting: 0 });
    await expect(
      client.db.transaction(async (tx) => {
        await tx.execute(sql`select 1/0`);
      }),
    ).rejects.toThrow();
    expect(client.poolUsage()).toEqual({ max: 2, inUse: 0, waiting: 0 });
  });

  it('a failed statement is no longer counted', async () => {
    await expect(client.db.execute(sql`select * from no_such_table`)).rejects.toThrow();
    expect(client.poolUsage()).toEqual({ max: 2, inUse: 0, waiting: 0 });
  });

  // db/client.ts: a console query planned at millions of rows spent 1.4 s compiling on a Postgres built with LLVM.
  it('sends its statements with JIT compilation off', async () => {
    const [row] = await client.db.execute<{ jit: string }>(sql`select current_setting('jit') as jit`);
    expect(row!.jit).toBe('off');
  });
});
