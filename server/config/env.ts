import { z } from 'zod';
import { normaliseCidr } from '../auth/cidr';

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

// Every setting the service reads, with its default. Read once, at start; a bad value stops
// start-up with a message naming the variable (see loadEnv).
export const envSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('::'),
  PUBLIC_BASE_URL: z.url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  // A streaming replica of DATABASE_URL's database: the console's and the partner API's list queries read
  // there (ctx.read, server/context.ts). Unset: they read the primary, as everything else always does.
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  // A replica further behind than this (or unreachable) is left: reads go to the primary until it caught up
  // (server/boot/read-replica.ts). A list then reflects every write older than this plus the 1 s probe.
  DATABASE_READ_MAX_LAG_SECONDS: int(1, 3600).default(5),
  // /metrics: a bearer token when set; without one, loopback clients only (README "Metrics").
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // A worker-only process (npm run worker) serves /metrics on this port; unset, it serves none.
  METRICS_PORT: int(0, 65535).optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  DB_POOL_MAX: int(1, 200).default(10),
  DB_TIMEOUT_MS: int(100, 60_000).default(3000),
  REQUEST_TIMEOUT_MS: int(500, 120_000).default(5000),
  // An operator's GraphQL operation still running after this answers 503 and its statements are cancelled.
  GRAPHQL_TIMEOUT_MS: int(100, 120_000).default(5000),
  // Aggregates (overview, subscriptionHealth, ...) running at once in one process; the rest wait their turn.
  GRAPHQL_AGGREGATE_CONCURRENCY: int(1, 50).default(2),
  // The operator API's own pool (per web process), apart from DB_POOL_MAX: see README "Operator API (GraphQL)".
  GRAPHQL_DB_POOL_MAX: int(1, 50).default(3),
  // Receiving the body is the client's time, not the database's: a slower body is a 408.
  REQUEST_BODY_TIMEOUT_MS: int(500, 120_000).default(10_000),
  // SIGTERM/SIGINT: how long requests and webhook attempts in flight get to finish before the process
  // closes what is left (attempts go back to the queue) and exits. Keep it under the orchestrator's grace period.
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(15_000),
  CONSOLE: z.enum(['on', 'off']).default('on'),
  WORKERS: z.enum(['on', 'off']).default('on'),
  // Which job queues this process works (WORKERS=on): a comma-separated list of queue names, or of names each
  // prefixed with '-' for every queue but those; unset, all of them. jobs/registry.ts (workedQueues) checks the names.
  WORKER_QUEUES: commaList.optional(),
  // A process that works every queue (WORKER_QUEUES unset) works the replays' pages on a thread of its own, so a
  // backfill's attempts do not share the event loop of the requests and live deliveries (server/boot/replay-thread.ts).
  REPLAY_THREAD: z.enum(['on', 'off']).default('on'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUSTED_PROXY_CIDRS: commaList
    .refine((list) => list.every((c) => normaliseCidr(c) !== undefined), 'every entry must be an IPv4 or IPv6 CIDR')
    .default([]),
  CREDENTIAL_CACHE_TTL_MS: int(0, 5000).default(3000),
  RATE_LIMIT_PER_SECOND: int(1, 100_000).default(100),
  RATE_LIMIT_BURST: int(1, 1_000_000).default(200),
  AUTH_FAILURES_PER_SECOND: int(1, 100_000).default(10),
  IDEMPOTENCY_TTL_HOURS: int(1, 24 * 30).default(24),
  QUOTE_BASE_FEE: int(0, 10_000_000).default(500),
  QUOTE_FEE_PER_KM: int(0, 10_000_000).default(120),
  QUOTE_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .default('USD'),
  QUOTE_TTL_SECONDS: int(10, 86_400).default(300),
  SERVICE_RADIUS_METERS: int(100, 1_000_000).default(25_000),
  MIN_DISTANCE_METERS: int(0, 100_000).default(100),
  COURIER_SPEED_KMH: z.coerce.number().positive().max(300).default(18),
  PICKUP_LEAD_SECONDS: int(0, 86_400).default(600),
  SANDBOX_ORDER_TIMEOUT_SECONDS: int(60, 30 * 86_400).default(3600),
  EVENT_RETENTION_DAYS: int(1, 3650).default(30),
  FAILED_REQUEST_RETENTION_DAYS: int(1, 365).default(7),
  SECRET_ENCRYPTION_KEY: z
    .string()
    .refine(
      (v) => /^[0-9a-f]{64}$/i.test(v.trim()) || Buffer.from(v.trim(), 'base64').length === 32,
      '32 bytes, as 64 hex characters or base64',
    )
    .optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'comma-separated seconds, e.g. 5,300,1800')
    .transform((v) => v.split(',').map((x) => Number(x.trim())))
    .optional(),
  WEBHOOK_SANDBOX_RETRY_WINDOW_SECONDS: int(0, 30 * 86_400).default(1800),
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000),
  WEBHOOK_DNS_CACHE_SECONDS: int(0, 60).default(30),
  // Concurrent attempts per subscription across every worker: each starts at the base and follows its
  // receiver up to the max (server/delivery/in-flight-limit.ts). 64 is also the connections a worker
  // keeps per origin (server/delivery/http-client.ts).
  WEBHOOK_BASE_IN_FLIGHT_PER_SUBSCRIPTION: int(1, 1000).default(10),
  WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: int(1, 1000).default(64),
  // How long a worker holds an attempt it claimed without renewing the claim (it renews every third
  // of it): a dead worker's attempts go to a live one within the longer of this and the heartbeat's 15 s,
  // plus WEBHOOK_SWEEP_INTERVAL_MS (server/delivery/leases.ts).
  WEBHOOK_CLAIM_SECONDS: int(3, 600).default(30),
  WEBHOOK_SWEEP_INTERVAL_MS: int(100, 60_000).default(5000),
  WEBHOOK_AUTO_DISABLE_AFTER_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(120),
  // A subscription whose every attempt has failed this long is announced as failing (mail to the
  // partner's technical contacts, webhook.failing): past a deploy or a restart, well before the
  // auto-disable (server/notices/stages.ts).
  WEBHOOK_NOTICE_FAILING_AFTER_SECONDS: int(1, 30 * 86_400).default(3600),
  WEBHOOK_MAX_SUBSCRIPTIONS: int(1, 1000).default(20),
  SEED_DEMO: bool.default(true),
  // smtp://user:pass@host:587 or smtps://...: where mail goes. Unset: kept in the local outbox the console shows.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).max(200).default('Partner Delivery Platform <no-reply@localhost>'),
  // A credential hand-over link works once, and only this long.
  HANDOVER_LINK_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(72),
  // Access requests (the public form) from all clients together, per hour: each mails a stranger's address.
  ACCESS_REQUESTS_PER_HOUR: int(1, 100_000).default(30),
  // `development` turns on GraphQL introspection and Apollo's landing page; they stay off otherwise.
  NODE_ENV: z.enum(['development', 'production', 'test']).optional(),
  // An operator's session ends this long after sign-in, or at sign-out or revocation.
  OPERATOR_SESSION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(12),
  // Failed sign-ins tolerated in 15 minutes before a 429: per account from one address (what one
  // guesser gets), per address (any accounts), and per account from every address together (a
  // distributed guesser; high, so that locking the real operator out takes many addresses).
  SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS: int(1, 1000).default(5),
  SIGN_IN_FAILURES_PER_ADDRESS: int(1, 100_000).default(20),
  SIGN_IN_FAILURES_PER_ACCOUNT: int(1, 100_000).default(100),
  // Password checks (scrypt, ~16 MiB and 50-70 ms of a core each) running at once in one process, and
  // how many more may wait; beyond that, 503 at once (server/sessions/sign-in-gates.ts).
  SIGN_IN_CONCURRENCY: int(1, 64).default(2),
  SIGN_IN_QUEUE: int(0, 10_000).default(8),
});

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {}

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  // Empty strings mean "unset", as in most deployment tools.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** For entry points: a bad setting is a message naming it and exit code 2, not a stack trace. */
export function loadEnvOrExit(): Env {
  try {
    return loadEnv();
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
}
