import { z } from 'zod';
import { runScenarioStep, SCENARIO_STEP_QUEUE } from '@/server/orders/scenario-step';
import { cancelStaleSandboxOrders } from '@/server/orders/timeout-sweep';
import { defineJob, jobContext } from './definition';

export const scenarioStepJob = defineJob({
  name: SCENARIO_STEP_QUEUE,
  payload: z.object({ order_id: z.string(), step: z.number().int().min(0) }),
  queue: { retryLimit: 5, retryDelay: 1, retryBackoff: true },
  work: { pollingIntervalSeconds: 0.5 },
  async handle(data, rt) {
    const outcome = await runScenarioStep({ ctx: jobContext(rt, SCENARIO_STEP_QUEUE), input: { orderId: data.order_id, step: data.step } });
    rt.log.debug({ order_id: data.order_id, step: data.step, outcome }, 'sandbox scenario step');
  },
});

export const sandboxTimeoutJob = defineJob({
  name: 'sandbox.timeout-sweep',
  payload: z.object({}).passthrough(),
  schedule: '* * * * *',
  queue: { policy: 'singleton', retryLimit: 1 },
  async handle(_data, rt) {
    const cancelled = await cancelStaleSandboxOrders({ ctx: jobContext(rt, 'sandbox.timeout-sweep') });
    if (cancelled > 0) rt.log.info({ cancelled }, 'cancelled stale sandbox orders');
  },
});
