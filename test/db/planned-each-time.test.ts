import { afterAll, describe, expect, it } from 'vitest';
import { createDbClient, plannedEachTime } from '@/db/client';
import { createTestDatabase } from '../support/database';

// postgres.js names (prepares) every statement, and Postgres may keep a generic plan for a named one after five
// runs; plannedEachTime sends it unnamed, planned for its values on every run (db/client.ts says why).

const client = createDbClient(await createTestDatabase(), { max: 1, connectTimeoutSeconds: 5 });
afterAll(() => client.sql.end({ timeout: 2 }));

const prepared = async (marker: string) =>
  (
    await client.sql<
      { n: number }[]
    >`select count(*)::int as n from pg_prepared_statements where statement like ${`%${marker}%`} and statement not like '%pg_prepared_statements%'`
  )[0]!.n;

describe('plannedEachTime', () => {
  it('sends the statement unnamed: nothing is kept prepared on the connection, however often it runs', async () => {
    for (let i = 0; i < 6; i++) {
      expect(await client.sql`select ${i}::int as n -- named`).toEqual([{ n: i }]);
      expect(await plannedEachTime(client.sql`select ${i}::int as n -- unnamed`)).toEqual([{ n: i }]);
    }
    expect(await prepared('-- named')).toBe(1);
    expect(await prepared('-- unnamed')).toBe(0);
  });
});
