import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { credentials, partners } from '@/db/schema';
import { cliContext } from '@/server/cli/operator-context';
import { withTransaction } from '@/server/context';
import { issueCredential } from '@/server/credentials/issue';
import { createOperator } from '@/server/operators/create';
import { createPartner } from '@/server/partners/create';
import type { Runtime } from './runtime';

export interface DemoCredentials {
  operator: { email: string; password: string };
  partner: { id: string; name: string };
  sandbox: { client_id: string; api_key: string };
}

// Any constant; only processes seeding the same database need to agree on it.
const SEED_LOCK = 728_463_102;

/**
 * On the embedded default's first start (an empty database), seeds a demo admin and a sandbox
 * partner. The plaintext secrets are kept in DATA_DIR/demo-credentials.json (mode 0600, local
 * development only) so every start can print them again.
 *
 * The seed is one transaction, and the file is written before it commits: a start killed halfway
 * leaves either nothing (the next start seeds again) or a file whose credential the database does
 * not hold, which is checked on every start and then replaced.
 */
export async function seedDemo(rt: Runtime): Promise<DemoCredentials | undefined> {
  const file = path.join(rt.env.DATA_DIR, 'demo-credentials.json');
  const saved = readSaved(file);
  if (saved && (await credentialUsable(rt, saved.sandbox.client_id))) return saved;

  const ctx = cliContext(rt, 'seed');
  try {
    return await withTransaction(ctx, async (tx) => {
      // Two processes starting at once on one new data directory: one seeds, the other sees partners.
      await tx.db.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK})`);
      const [row] = await tx.db.select({ n: count() }).from(partners);
      if ((row?.n ?? 0) > 0) return undefined; // not an empty database: nothing to seed, nothing to show
      const operator = { email: 'admin@example.com', password: randomBytes(12).toString('base64url') };
      await createOperator({ ctx: tx, input: { ...operator, role: 'admin' } });
      const partner = await createPartner({ ctx: tx, input: { name: 'Demo Partner' } });
      const cred = await issueCredential({ ctx: tx, input: { partnerId: partner.id, environment: 'sandbox' } });
      const demo: DemoCredentials = { operator, partner, sandbox: { client_id: cred.client_id, api_key: cred.api_key } };
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
      await rename(tmp, file);
      return demo;
    });
  } catch (e) {
    // Rolled back: a file naming credentials that were never committed must not be printed later
    // (a saved one is known unusable by now).
    await rm(file, { force: true });
    throw e;
  }
}

function readSaved(file: string): DemoCredentials | undefined {
  try {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
    return typeof demo?.sandbox?.client_id === 'string' && typeof demo.sandbox.api_key === 'string' ? demo : undefined;
  } catch {
    return undefined; // missing or unreadable
  }
}

async function credentialUsable(rt: Runtime, clientId: string): Promise<boolean> {
  const found = await rt.db
    .select({ id: credentials.id })
    .from(credentials)
    .where(and(eq(credentials.clientId, clientId), isNull(credentials.revokedAt)))
    .limit(1);
  return found.length > 0;
}
