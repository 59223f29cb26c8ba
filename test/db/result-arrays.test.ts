import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database';

// The Result hunk of patches/postgres+3.4.9.patch: a query's answer keeps its count, command, columns, statement and
// state as private fields behind accessors, not as five non-enumerable own properties defined on every result (V8 made
// those in its runtime: 2.6 us a query in a loop, the most of postgres.js's own CPU in an order read). What a caller
// sees of a result is unchanged.

const sql = postgres(await createTestDatabase(), { max: 1, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 2 }));

describe("a query's result", () => {
  it('is an array of its rows, with its count, command, columns and statement', async () => {
    const rows = await sql<{ a: number; b: string }[]>`select * from (values (1, 'x'), (2, 'y')) as t(a, b)`;
    expect(Array.isArray(rows)).toBe(true);
    expect([...rows]).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ]);
    expect(rows.count).toBe(2);
    expect(rows.command).toBe('SELECT');
    expect(rows.columns.map((c) => c.name)).toEqual(['a', 'b']);
    expect(rows.statement.string).toContain('select * from');
    expect(rows.state).toMatchObject({ pid: expect.any(Number) });
  });

  it('shows only its rows to keys, spreads, JSON and map', async () => {
    const rows = await sql`select 1 as a`;
    expect(Object.keys(rows)).toEqual(['0']);
    expect(JSON.stringify(rows)).toBe('[{"a":1}]');
    expect({ ...rows }).toEqual({ 0: { a: 1 } });
    expect(rows.map((r) => r.a).constructor).toBe(Array);
    // The patch in place: the properties are the class's accessors, not the result's own.
    expect(Object.getOwnPropertyDescriptor(rows, 'count')).toBeUndefined();
  });

  it('counts the rows a write touched, and answers each statement of a multi-statement text', async () => {
    await sql`create temporary table t (x int)`;
    const inserted = await sql`insert into t select generate_series(1, 3)`;
    expect(inserted.count).toBe(3);
    expect(inserted.command).toBe('INSERT');
    // Several statements answer an array of results, which postgres.js's types do not say.
    const results = (await sql.unsafe('select 1 as a; select 2 as b, 3 as c').simple()) as unknown as postgres.RowList<postgres.Row[]>[];
    expect(results.map((r) => [r.command, r.columns.length])).toEqual([
      ['SELECT', 1],
      ['SELECT', 2],
    ]);
  });
});
