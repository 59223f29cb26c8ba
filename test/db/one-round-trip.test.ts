import net from 'node:net';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { plannedEachTime } from '@/db/client';
import { createTestDatabase } from '../support/database';

// The second hunk of patches/postgres+3.4.9.patch. postgres.js sends an unprepared statement with parameters in
// two round trips (Parse and Describe, a wait for the parameters' types, then Bind and Execute); the delivery
// engine's statements planned for their values (plannedEachTime) go in one. Counted as the client's writes to
// its socket: postgres.js gathers what it sends in one go into one write.

let writes = 0;
// postgres.js takes a `socket` factory (src/connection.js), which its type declarations leave out.
const countingSocket = ({ host, port }: { host: string[]; port: number[] }) => {
  const socket = net.connect(port[0]!, host[0]!);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    writes++;
    return write(...args);
  }) as typeof socket.write;
  return socket;
};
const sql = postgres(await createTestDatabase(), { max: 1, onnotice: () => {}, socket: countingSocket } as postgres.Options<
  Record<string, never>
>);
afterAll(() => sql.end({ timeout: 2 }));

async function writesFor<T>(statement: () => Promise<T>): Promise<{ rows: T; writes: number }> {
  await sql`select 1`; // connected, and the type cache read
  const before = writes;
  const rows = await statement();
  return { rows, writes: writes - before };
}

describe('a statement planned for its values', () => {
  it('goes to the server in one round trip, its text, number and jsonb parameters typed by the server', async () => {
    const { rows, writes: sent } = await writesFor(() =>
      plannedEachTime(sql<{ x: string; n: number; quoted: string }[]>`
        select ${'a,b'}::text as x, ${41}::int + 1 as n, (${JSON.stringify({ q: "it's \\ here" })}::jsonb)->>'q' as quoted`),
    );
    expect(sent).toBe(1);
    expect(rows).toEqual([{ x: 'a,b', n: 42, quoted: "it's \\ here" }]);
  });

  it('took two unpatched, as any other unprepared statement still does', async () => {
    const { rows, writes: sent } = await writesFor(() => {
      const query = sql<{ x: string }[]>`select ${'a'}::text as x`;
      (query as unknown as { options: { prepare: boolean } }).options.prepare = false;
      return query;
    });
    expect(sent).toBe(2);
    expect(rows).toEqual([{ x: 'a' }]);
  });
});
