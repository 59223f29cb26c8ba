import type PgBoss from 'pg-boss';
import { createDbClient, type DbClient } from '@/db/client';
import type { Env } from './config/env';
import { createLogger, type Logger } from './logger';
import { CredentialCache } from './auth/credential-cache';
import { RateLimiter } from './rate-limit/limiter';
import { parseCidr, type Cidr } from './auth/cidr';
import type { SecretBox } from './crypto/secret-box';
import { systemResolver, type Resolver } from './webhooks/url-policy';

/** Process-wide singletons: one pool, one cache. Kept on globalThis so Next's bundle and tsx's modules share them. */
export interface Runtime extends DbClient {
  env: Env;
  log: Logger;
  credentials: CredentialCache;
  rateLimiter: RateLimiter;
  trustedProxies: Cidr[];
  /** The job queue client; set once pg-boss has started (every service process starts one). */
  boss?: PgBoss;
  /** Seals webhook signing secrets; set by the service at start (server/crypto/encryption-key.ts). */
  secretBox?: SecretBox;
  /** How webhook hosts resolve; tests swap in their own to point names at chosen addresses. */
  resolver: Resolver;
}

const KEY = Symbol.for('partner-delivery.runtime');
type Holder = { [KEY]?: Runtime };

export function initRuntime(env: Env, databaseUrl: string, log: Logger = createLogger(env.LOG_LEVEL)): Runtime {
  const client = createDbClient(databaseUrl, {
    max: env.DB_POOL_MAX,
    connectTimeoutSeconds: Math.max(1, Math.ceil(env.DB_TIMEOUT_MS / 1000)),
  });
  const rt: Runtime = {
    ...client,
    env,
    log,
    credentials: new CredentialCache(client.db, env),
    rateLimiter: new RateLimiter(client.db),
    resolver: systemResolver,
    trustedProxies: env.TRUSTED_PROXY_CIDRS.map((text) => {
      const cidr = parseCidr(text);
      if (!cidr) throw new Error(`TRUSTED_PROXY_CIDRS: '${text}' is not a CIDR`);
      return cidr;
    }),
  };
  (globalThis as Holder)[KEY] = rt;
  return rt;
}

export function runtime(): Runtime {
  const rt = (globalThis as Holder)[KEY];
  if (!rt) throw new Error('runtime not initialised: start the service with `npm start` (server/main.ts)');
  return rt;
}

export async function closeRuntime(): Promise<void> {
  const rt = (globalThis as Holder)[KEY];
  if (!rt) return;
  delete (globalThis as Holder)[KEY];
  await rt.sql.end({ timeout: 2 });
}
