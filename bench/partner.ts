import { createPartnerClient, type PartnerClient } from '@partner-delivery/client';
import { loadEnv, type Env } from '@/server/config/env';
import { cliContext } from '@/server/cli/operator-context';
import { issueCredential } from '@/server/credentials/issue';
import { createPartner } from '@/server/partners/create';
import { setRateLimit } from '@/server/partners/set-rate-limit';
import { createRuntime } from '@/server/boot/runtime';
import { createLogger } from '@/server/logger';

export interface BenchPartner {
  partnerId: string;
  environment: 'sandbox';
  clientId: string;
  apiKey: string;
  ratePerSecond: number;
}

// The highest limit an operator can set (server/partners/set-rate-limit.ts): far above what this machine serves.
const RATE_PER_SECOND = 100_000;

/**
 * The partner's typed client for the bench's setup calls (subscriptions, orders to read, replays), in the
 * environment's pin as a raw request would be. The load itself stays autocannon's fixed bytes.
 */
export function benchClient(url: string, partner: BenchPartner): PartnerClient {
  return createPartnerClient({ baseUrl: url, clientId: partner.clientId, apiKey: partner.apiKey, version: null });
}

/** A setup call's success body; any other answer stops the bench, saying what failed. */
export function succeeded<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (!answer.response.ok || answer.data === undefined) {
    throw new Error(`${what}: HTTP ${answer.response.status} ${JSON.stringify(answer.error ?? answer.data)}`);
  }
  return answer.data;
}

/** The settings of the bench's own in-process helpers (not of the service it measures). */
export function benchEnv(databaseUrl: string, extra: Record<string, string> = {}): Env {
  return loadEnv({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    CONSOLE: 'off',
    WORKERS: 'off',
    ...extra,
  });
}

/** A sandbox partner with one credential and a raised rate limit, made with the domain verbs (as an operator would). */
export async function createBenchPartner(databaseUrl: string, name: string): Promise<BenchPartner> {
  const env = benchEnv(databaseUrl);
  const rt = createRuntime({ env, databaseUrl, log: createLogger(env.LOG_LEVEL) });
  try {
    const ctx = cliContext(rt, 'bench');
    const partner = await createPartner({ ctx, input: { name } });
    await setRateLimit({ ctx, input: { partnerId: partner.id, perSecond: RATE_PER_SECOND } });
    const cred = await issueCredential({ ctx, input: { partnerId: partner.id, environment: 'sandbox' } });
    return {
      partnerId: partner.id,
      environment: 'sandbox',
      clientId: cred.client_id,
      apiKey: cred.api_key,
      ratePerSecond: RATE_PER_SECOND,
    };
  } finally {
    await rt.close();
  }
}
