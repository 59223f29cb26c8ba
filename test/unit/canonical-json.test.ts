import fc from 'fast-check';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@/server/versions/canonical-json';
import { createTestDatabase } from '../support/database';

// A delivery's body used to be JSON.stringify of the envelope as Postgres jsonb handed it back. The first
// version's body must stay those bytes, so canonicalJson must order keys exactly as that path did, for any
// keys a partner may write (metadata is theirs: unicode, digits, empty).

let sql: postgres.Sql;
beforeAll(async () => {
  sql = postgres(await createTestDatabase(), { max: 1, onnotice: () => {} });
});
afterAll(() => sql.end());

const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 4, unit: 'binary' }),
  fc.constantFrom(
    'id',
    'data',
    'type',
    'object',
    'created',
    'livemode',
    'status_history',
    '10',
    '2',
    '02',
    '-1',
    'é',
    'z',
    'Ω',
    '日本',
    '𝄞',
    '',
  ),
);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 4 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
})).value;
// Postgres text cannot hold U+0000 or a lone surrogate: the API refuses them before they are stored.
// (JSON.stringify writes both as escapes: \u0000, \ud800.)
const storable = (v: unknown) => !/\\u0000|\\ud[89a-f][0-9a-f]{2}/.test(JSON.stringify(v));

describe('canonicalJson', () => {
  it('writes any JSON object in the bytes that JSON.stringify of its jsonb text wrote', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, json, { maxKeys: 8 }).filter(storable), async (value) => {
        const [row] = await sql<{ text: string }[]>`select (${JSON.stringify(value)}::text::jsonb)::text as text`;
        expect(canonicalJson(value)).toBe(JSON.stringify(JSON.parse(row!.text)));
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the order keys were inserted in', () => {
    expect(canonicalJson({ b: 1, a: { y: 2, x: 1 }, '10': 0, '2': 0 })).toBe(canonicalJson({ '2': 0, a: { x: 1, y: 2 }, '10': 0, b: 1 }));
    expect(canonicalJson({ created: 1, id: 'e', data: {}, type: 't' })).toBe('{"id":"e","data":{},"type":"t","created":1}');
    expect(canonicalJson([{ b: 1, a: [{ d: 1, c: 2 }] }])).toBe('[{"a":[{"c":2,"d":1}],"b":1}]');
  });

  it('leaves out undefined properties and writes undefined array items null, as JSON.stringify does', () => {
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
  });
});
