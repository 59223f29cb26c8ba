import { eq, sql } from 'drizzle-orm';
import { orders } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { NotFoundError } from '../errors';
import { enqueue } from '../outbox/enqueue';
import { SCENARIO_STEP } from '../outbox/queues';
import { roomForMove } from './history-cap';
import { applyMove, lockOrder } from './move';
import { COURIER_CANCELLATION, SCENARIO_STEPS } from './scenarios';
import { findTransition, type OrderStatus } from './state-machine';

export type StepOutcome = 'moved' | 'finished' | 'stale' | 'stopped';

/**
 * One step of a sandbox scenario: moves the order and schedules the next step, in one transaction.
 * A step whose index is not the order's next one (a retried or duplicate job) does nothing; a step
 * that is no longer legal (the partner cancelled meanwhile, or filled the order's history) ends the scenario quietly.
 */
export async function runScenarioStep({ ctx, input }: { ctx: Ctx; input: { orderId: string; step: number } }): Promise<StepOutcome> {
  return withTransaction(ctx, async (tx) => {
    const row = await lockOrder(tx, input.orderId).catch((e: unknown) => {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    });
    const sim = row?.simulation;
    if (!row || !sim || sim.next_step !== input.step) return 'stale';
    const steps = SCENARIO_STEPS[sim.scenario] ?? [];
    const to = steps[input.step];
    if (!to) return 'finished';
    // The partner may also move a scenario's order by hand, up to the history cap: a step refused either way is not
    // retried (a job that throws is retried five times, and each would be refused again).
    if (!findTransition(row.status as OrderStatus, to) || !roomForMove(row.statusHistory.length, to)) {
      await applyStop(tx, row.id);
      return 'stopped';
    }
    const next = input.step + 1;
    await applyMove(tx, row, {
      to,
      cancellation: to === 'cancelled' ? COURIER_CANCELLATION : undefined,
      simulation: { ...sim, next_step: next },
    });
    if (next < steps.length) {
      // The move commits with its next step or not at all, or the scenario would stall with no error anywhere.
      await enqueue(tx, SCENARIO_STEP, { order_id: row.id, step: next }, { startAfterSeconds: sim.step_seconds });
      return 'moved';
    }
    return 'finished';
  });
}

/** next_step -1: no step index matches any more, so a stray job for this order is stale. */
async function applyStop(ctx: Ctx, orderId: string): Promise<void> {
  await ctx.db
    .update(orders)
    .set({ simulation: sql`jsonb_set(${orders.simulation}, '{next_step}', '-1')` })
    .where(eq(orders.id, orderId));
}
