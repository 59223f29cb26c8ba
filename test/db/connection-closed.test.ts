import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createDbClient } from '@/db/client';
import { createTestDatabase } from '../support/database';

// The path of patches/postgres+3.4.9.patch, made to happen every time. A transaction's session is ended by
// the server while the process is not looking (the sweep's idle bound ending a stalled sweeper's session:
// server/delivery/leases.ts; a failover; pg_terminate_backend), then the process sends its next statement
// on it. Unpatched, postgres.js queued that write with setImmediate on a connection whose socket was
// already gone and threw from the immediate, where no caller can catch it: the process exited
// (`TypeError: Cannot read properties of null (reading 'write')`, upstream issues #1154 and #1208).

const client = createDbClient(await createTestDatabase(), { max: 1, connectTimeoutSeconds: 5 });
afterAll(() => client.sql.end({ timeout: 2 }));

const uncaught: unknown[] = [];
// Drizzle wraps the driver's error (DrizzleQueryError) with the driver's as its cause.
const codeOf = (err: unknown): unknown => (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
const record = (error: unknown) => uncaught.push(error);

describe('a statement sent on a session the server has ended', () => {
  it('rejects with CONNECTION_CLOSED instead of ending the process, and the pool serves the next statement', async () => {
    process.on('uncaughtException', record);
    try {
      let sentAfterClose: Promise<string> | undefined;
      const transaction = client.db
        .transaction(async (tx) => {
          // The sweep's own bound (leases.ts takes 5 s), shortened: the server ends the idle session.
          await tx.execute(sql`select set_config('idle_in_transaction_session_timeout', '100ms', true)`);
          await sleep(600);
          // The statement a stalled sweeper sends when it wakes.
          sentAfterClose = tx.execute(sql`select 1`).then(
            () => 'answered',
            (err: unknown) => `rejected ${codeOf(err)}`,
          );
          await sentAfterClose;
        })
        .then(
          () => 'committed',
          (err: unknown) => `rejected ${codeOf(err)}`,
        );

      expect(await transaction).toBe('rejected CONNECTION_CLOSED');
      // The transaction rejects when the session ends; its body goes on and sends its statement afterwards.
      await sleep(1000);
      expect(await sentAfterClose).toBe('rejected CONNECTION_CLOSED');
      // One connection in the pool: the same one, opened again, answers the next statement.
      const [row] = await client.db.execute<{ n: number }>(sql`select 2 as n`);
      expect(row!.n).toBe(2);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
    }
  });

  it('lets the pool end (end() waited forever for the statement that never went out)', async () => {
    const other = createDbClient(await createTestDatabase(), { max: 1, connectTimeoutSeconds: 5 });
    const left = other.db
      .transaction(async (tx) => {
        await tx.execute(sql`select set_config('idle_in_transaction_session_timeout', '100ms', true)`);
        await sleep(600);
        await tx.execute(sql`select 1`);
      })
      .catch(() => undefined);
    await left;
    await sleep(1000);
    // end() without a timeout waits for every query in flight: none is left.
    const ended = await Promise.race([other.sql.end().then(() => 'ended'), sleep(3000).then(() => 'still waiting')]);
    if (ended !== 'ended') await other.sql.end({ timeout: 0 });
    expect(ended).toBe('ended');
  });
});
