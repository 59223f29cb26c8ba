import { randomBytes } from 'node:crypto';
import { startChild, type ChildServer } from './processes';
import type { BenchContext } from './scenario';

/**
 * The two ways the service runs in the bench:
 * - `as started`: what a newcomer measures after `npm ci && npm start`: web tier, workers and console
 *   in one process, every setting at its default, the log read line by line as a terminal reads it.
 *   Only the database differs: the bench's own (the same embedded PostgreSQL build npm start uses).
 * - `lean`: the web tier alone (WORKERS=off CONSOLE=off), its log discarded: one process of the
 *   production layout's web fleet (README, Running in production).
 */
export type Layout = 'as started' | 'lean';
export const LAYOUTS: Layout[] = ['as started', 'lean'];

// Required with DATABASE_URL; nothing the bench measures depends on it. One per bench run.
const KEY = randomBytes(32).toString('hex');

export function serviceEnv(layout: Layout, databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const common = { DATABASE_URL: databaseUrl, SECRET_ENCRYPTION_KEY: KEY, SEED_DEMO: 'false' };
  return layout === 'lean' ? { ...common, NODE_ENV: 'production', WORKERS: 'off', CONSOLE: 'off', ...extra } : { ...common, ...extra };
}

/** Starts the service in `layout` (`node --import tsx server/boot/web.ts`, as `npm start` does); stopped at the scenario's end. */
export async function startService(
  ctx: BenchContext,
  layout: Layout,
  options: { env?: Record<string, string>; nodeArgs?: string[]; cwd?: string; label?: string } = {},
): Promise<ChildServer> {
  const child = await startChild(options.label ?? layout, 'server/boot/web.ts', serviceEnv(layout, ctx.database.url, options.env), {
    nodeArgs: options.nodeArgs,
    cwd: options.cwd,
    stdout: layout === 'as started' ? 'read' : 'discard',
  });
  ctx.onCleanup(child.stop);
  return child;
}
