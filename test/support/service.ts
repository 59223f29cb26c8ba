import { afterAll } from 'vitest';
import type { QueryObserver } from '@/db/client';
import { loadEnv, type Env } from '@/server/config/env';
import { cliContext } from '@/server/cli/operator-context';
import { issueCredential } from '@/server/credentials/issue';
import { addAllowlistEntry } from '@/server/allowlist/edit';
import { decideGoLive } from '@/server/partners/go-live';
import { createPartner } from '@/server/partners/create';
import type { Ctx, OperatorActor } from '@/server/context';
import { startProcess, type RunningProcess } from '@/server/boot/start-process';
import type { Logger } from '@/server/logger';
import type { Resolver } from '@/server/delivery/url-policy';
import { createTestDatabase } from './database';

// A fixed key: tests seal and open secrets; nothing real is protected by it.
export const TEST_ENCRYPTION_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

export interface TestService extends RunningProcess {
  url: string;
  env: Env;
  databaseUrl: string;
}

/**
 * The real service (front door, partner routes, workers) on a free port over this file's own
 * database, without the Next console. Stopped after the file's tests.
 */
export async function startTestService(
  overrides: Record<string, string> = {},
  opts: {
    resolver?: Resolver;
    log?: Logger;
    /** A database of the file's own (e.g. one it restarts) instead of a fresh one on the run's Postgres. */
    databaseUrl?: string;
    /** Sees every statement of the service's pool (tests that count queries). */
    onQuery?: QueryObserver;
    /** Sees every statement of its read pools on DATABASE_READ_URL. */
    onReadQuery?: QueryObserver;
    /** Replays' pages on a thread of their own, as `npm start` works them (server/boot/replay-thread.ts). */
    replayThread?: boolean;
  } = {},
): Promise<TestService> {
  const databaseUrl = opts.databaseUrl ?? (await createTestDatabase());
  const env = loadEnv({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '::',
    CONSOLE: 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // As before drains existed: a file's teardown gives attempts in flight 5 s, not production's 15.
    SHUTDOWN_TIMEOUT_MS: '5000',
    SEED_DEMO: 'false',
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...overrides,
  });
  const service = await startProcess(
    env,
    { web: true, workers: env.WORKERS === 'on' },
    { resolver: opts.resolver, log: opts.log, onQuery: opts.onQuery, onReadQuery: opts.onReadQuery, replayThread: opts.replayThread },
  );
  afterAll(() => service.stop());
  return { ...service, url: service.url!, env, databaseUrl };
}

export interface TestPartner {
  partnerId: string;
  clientId: string;
  apiKey: string;
  environment: 'sandbox' | 'production';
  headers: Record<string, string>;
  /** The service's base URL, so helpers can call the API as this partner. */
  baseUrl: string;
}

/** The go-live review as a partner and an operator go through it: asked for, then approved. */
export async function approveGoLive(ctx: Ctx<OperatorActor>, partnerId: string): Promise<void> {
  await decideGoLive({ ctx, input: { partnerId, decision: 'request' } });
  await decideGoLive({ ctx, input: { partnerId, decision: 'approve' } });
}

/** A partner with one credential (production implies an approved go-live), optionally allowlisted. */
export async function createTestPartner(
  service: RunningProcess,
  opts: { environment?: 'sandbox' | 'production'; allowlist?: string[]; partnerId?: string } = {},
): Promise<TestPartner> {
  const ctx = cliContext(service.rt, 'test');
  const environment = opts.environment ?? 'sandbox';
  const partnerId = opts.partnerId ?? (await createPartner({ ctx, input: { name: 'Test Partner' } })).id;
  if (environment === 'production' && !opts.partnerId) await approveGoLive(ctx, partnerId);
  for (const cidr of opts.allowlist ?? []) await addAllowlistEntry({ ctx, input: { partnerId, cidr } });
  const cred = await issueCredential({ ctx, input: { partnerId, environment } });
  return {
    partnerId,
    clientId: cred.client_id,
    apiKey: cred.api_key,
    environment,
    headers: { 'x-client-id': cred.client_id, 'x-api-key': cred.api_key, 'content-type': 'application/json' },
    baseUrl: service.url ?? '',
  };
}

export const NYC = {
  pickup: { lat: 40.7484, lng: -73.9857 },
  dropoff: { lat: 40.758, lng: -73.9855 },
};
