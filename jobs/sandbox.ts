import { runScenarioStep } from '@/server/orders/scenario-step';
import { cancelStaleSandboxOrders } from '@/server/orders/timeout-sweep';
import { SANDBOX_TIMEOUT_SWEEP, SCENARIO_STEP } from '@/server/outbox/queues';
import { defineJob, jobContext } from './definition';

export const scenarioStepJob = defineJob({
  queue: SCENARIO_STEP,
  settings: { retryLimit: 5, retryDelay: 1, retryBackoff: true, expireInSeconds: 30 },
  work: { pollingIntervalSeconds: 0.5 },
  async handle(data, deps) {
    const outcome = await runScenarioStep({
      ctx: jobContext(deps, SCENARIO_STEP.name),
      input: { orderId: data.order_id, step: data.step },
    });
    deps.log.debug({ order_id: data.order_id, step: data.step, outcome }, 'sandbox scenario step');
  },
});

export const sandboxTimeoutJob = defineJob({
  queue: SANDBOX_TIMEOUT_SWEEP,
  everyMinutes: 1,
  settings: { policy: 'singleton', retryLimit: 1, expireInSeconds: 40 },
  async handle(_data, deps) {
    const cancelled = await cancelStaleSandboxOrders({ ctx: jobContext(deps, SANDBOX_TIMEOUT_SWEEP.name) });
    if (cancelled > 0) deps.log.info({ cancelled }, 'cancelled stale sandbox orders');
  },
});
