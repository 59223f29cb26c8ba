import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layering rule of eslint.config.mjs, tried on files that do not exist: each forbidden arrow
// must fail lint, each allowed one must pass, so a new file cannot quietly point an arrow up.

const eslint = new ESLint({ cwd: process.cwd() });

async function layeringErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport const used = x;\n`, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const forbidden: [room: string, file: string, importLine: string][] = [
  ['domain -> jobs/', 'server/orders/example.ts', "import { x } from '@/jobs/registry';"],
  ['domain -> jobs/ (relative)', 'server/orders/example.ts', "import { x } from '../../jobs/job-queue';"],
  ['domain -> entry point', 'server/orders/example.ts', "import { x } from '@/server/boot/runtime';"],
  ['domain -> http face', 'server/partners/example.ts', "import { x } from '../http/validation';"],
  ['domain -> cli face', 'server/partners/example.ts', "import { x } from '@/server/cli/output';"],
  ['domain -> graphql face', 'server/outbox/example.ts', "import { x } from '@/server/graphql/schema';"],
  ['domain -> app/', 'server/webhooks/example.ts', "import { x } from '@/app/partner/quotes/route';"],
  ['delivery pipeline -> jobs/', 'server/delivery/example.ts', "import { x } from '@/jobs/delivery-engine';"],
  ['delivery pipeline -> queue library', 'server/delivery/example.ts', "import x from 'pg-boss';"],
  ['delivery pipeline -> http face', 'server/delivery/example.ts', "import { x } from '../http/json';"],
  ['domain -> queue library', 'server/outbox/example.ts', "import x from 'pg-boss';"],
  ['domain -> framework', 'server/events/example.ts', "import { x } from 'next/server';"],
  ['http face -> jobs/', 'server/http/example.ts', "import { x } from '@/jobs/registry';"],
  ['http face -> entry point', 'server/http/example.ts', "import { x } from '@/server/boot/route-table';"],
  ['http face -> another face', 'server/http/example.ts', "import { x } from '../cli/output';"],
  ['cli face -> jobs/', 'server/cli/example.ts', "import { x } from '@/jobs/boss';"],
  ['graphql face -> the database', 'server/graphql/example.ts', "import { x } from 'drizzle-orm';"],
  ['jobs/ -> entry point', 'jobs/example.ts', "import { x } from '@/server/boot/runtime';"],
  ['jobs/ -> http face', 'jobs/example.ts', "import { x } from '@/server/http/partner-route';"],
  ['app/ -> the database', 'app/partner/example/route.ts', "import { x } from '@/db/schema';"],
  ['app/ -> jobs/', 'app/partner/example/route.ts', "import { x } from '@/jobs/registry';"],
  ['db/ -> server/', 'db/example.ts', "import { x } from '@/server/context';"],
  ["partners' client -> the service", 'clients/typescript/src/example.ts', "import { x } from '@/server/delivery/signing';"],
  [
    "partners' client -> the service (relative)",
    'clients/typescript/src/example.ts',
    "import { x } from '../../../server/orders/schemas';",
  ],
];

const allowed: [room: string, file: string, importLine: string][] = [
  [
    'domain -> domain and db/',
    'server/orders/example.ts',
    "import { x } from '../outbox/enqueue';\nimport { y } from '@/db/schema';\nvoid y;",
  ],
  ['http face -> domain', 'server/http/example.ts', "import { x } from '../validation';"],
  ['jobs/ -> domain', 'jobs/example.ts', "import { x } from '@/server/webhooks/deliver';"],
  ['jobs/ -> delivery pipeline', 'jobs/example.ts', "import { x } from '@/server/delivery/send-attempt';"],
  [
    'entry point -> faces and jobs/',
    'server/boot/example.ts',
    "import { x } from '@/jobs/registry';\nimport { y } from '@/server/http/front-door';\nvoid y;",
  ],
  ['app/ -> http face and domain schemas', 'app/partner/example/route.ts', "import { x } from '@/server/http/partner-route';"],
  ["partners' client -> its own files and openapi-fetch", 'clients/typescript/src/example.ts', "import { x } from '../generated/version';"],
];

describe('layering lint rule', () => {
  it.each(forbidden)('fails %s', async (_room, file, line) => {
    expect(await layeringErrors(file, line)).toHaveLength(1);
  });

  it.each(allowed)('allows %s', async (_room, file, line) => {
    expect(await layeringErrors(file, line)).toEqual([]);
  });
});
