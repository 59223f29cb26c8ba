import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printOperatorSchema } from '@/server/graphql/schema';

// Both are generated and committed; `npm run graphql:schema` writes them after a resolver changes.
describe('the committed schema', () => {
  it('schema.graphql is what the resolvers build', () => {
    expect(readFileSync('server/graphql/schema.graphql', 'utf8')).toBe(printOperatorSchema());
  });

  it("the console's typed operations read the same schema (app/_console/graphql-env.d.ts)", () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'pdp-tada-')), 'graphql-env.d.ts');
    execFileSync('node_modules/.bin/gql.tada', ['generate-output', '--output', out], { stdio: 'pipe' });
    expect(readFileSync('app/_console/graphql-env.d.ts', 'utf8')).toBe(readFileSync(out, 'utf8'));
  });
});
