import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { count } from 'drizzle-orm';
import { partners } from '@/db/schema';
import { cliContext } from '../cli/operator-context';
import { issueCredential } from '../credentials/issue';
import { createOperator } from '../operators/create';
import { createPartner } from '../partners/create';
import type { Runtime } from '../runtime';

export interface DemoCredentials {
  operator: { email: string; password: string };
  partner: { id: string; name: string };
  sandbox: { client_id: string; api_key: string };
}

/**
 * On the embedded default's first start (an empty database), seeds a demo admin and a sandbox
 * partner. The plaintext secrets are kept in DATA_DIR/demo-credentials.json (mode 0600, local
 * development only) so every start can print them again.
 */
export async function seedDemo(rt: Runtime): Promise<DemoCredentials | undefined> {
  const file = path.join(rt.env.DATA_DIR, 'demo-credentials.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
  const [row] = await rt.db.select({ n: count() }).from(partners);
  if ((row?.n ?? 0) > 0) return undefined;
  const ctx = cliContext(rt, 'seed');
  const operator = { email: 'admin@example.com', password: randomBytes(12).toString('base64url') };
  await createOperator({ ctx, input: { ...operator, role: 'admin' } });
  const partner = await createPartner({ ctx, input: { name: 'Demo Partner' } });
  const cred = await issueCredential({ ctx, input: { partnerId: partner.id, environment: 'sandbox' } });
  const demo: DemoCredentials = { operator, partner, sandbox: { client_id: cred.client_id, api_key: cred.api_key } };
  await writeFile(file, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
  return demo;
}
