import type PgBoss from 'pg-boss';
import { startBoss } from '@/jobs/boss';
import { createLogger } from '@/server/logger';
import { cliContext } from '@/server/cli/operator-context';
import { withTransaction } from '@/server/context';
import { emitEvent } from '@/server/events/emit';
import { newId } from '@/server/ids';
import { createRuntime } from '@/server/boot/runtime';
import { benchEnv, type BenchPartner } from './partner';

/** The bench's own runtime and queue client: it commits events exactly as an order move does. */
export async function startEmitter(databaseUrl: string, partner: BenchPartner) {
  const env = benchEnv(databaseUrl, { DB_POOL_MAX: '4' });
  const log = createLogger(env.LOG_LEVEL);
  const boss: PgBoss = await startBoss({ databaseUrl, log, supervise: false });
  const rt = createRuntime({ env, databaseUrl, log, boss });
  const ctx = cliContext(rt, 'bench');
  /** Commits `count` order.created events in one transaction; returns their ids and the commit time. */
  const emit = async (count: number): Promise<{ ids: string[]; committedAt: number }> => {
    const ids = await withTransaction(ctx, async (tx) => {
      const out: string[] = [];
      for (let i = 0; i < count; i++) {
        const id = newId();
        const event = await emitEvent(tx, {
          type: 'order.created',
          partnerId: partner.partnerId,
          environment: partner.environment,
          object: {
            id,
            object: 'order',
            status: 'created',
            external_id: `bench-${id}`,
            fee: { amount: 743, currency: 'USD' },
            status_history: [{ status: 'created', at: Math.floor(Date.now() / 1000) }],
          },
        });
        out.push(event.envelope.id);
      }
      return out;
    });
    return { ids, committedAt: Date.now() };
  };
  const stop = async () => {
    await boss.stop({ graceful: false, wait: true }).catch(() => {});
    await rt.close();
  };
  return { emit, stop };
}

export type BenchEmitter = Awaited<ReturnType<typeof startEmitter>>;
