import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printOperatorSchema } from '@/server/graphql/schema';

describe('schema.graphql', () => {
  it('is what the resolvers build (run `npm run graphql:schema` after changing them)', () => {
    expect(readFileSync('server/graphql/schema.graphql', 'utf8')).toBe(printOperatorSchema());
  });
});
