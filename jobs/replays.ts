import { REPLAY_PAGE } from '@/server/outbox/queues';
import { runReplayPage } from '@/server/replays/run-page';
import { defineJob, jobContext } from './definition';
import { deliveryEngineOf } from './delivery-engine';

export const replayPageJob = defineJob({
  queue: REPLAY_PAGE,
  // One page is one transaction; a dead worker's page is retried after its expiry and resumes from the cursor.
  settings: { retryLimit: 20, retryDelay: 1, expireInSeconds: 30 },
  work: { pollingIntervalSeconds: 0.5 },
  async handle(data, deps) {
    // A page's attempts are claimed for this process's engine and handed to it once the page committed.
    const engine = deliveryEngineOf(deps);
    const claimedAt = performance.now();
    const { outcome, claimed } = await runReplayPage({
      ctx: jobContext(deps, REPLAY_PAGE.name),
      input: { replayId: data.replay_id, step: data.step, engine },
    });
    await engine.accept(claimed, claimedAt);
    deps.log.debug({ replay_id: data.replay_id, step: data.step, outcome, attempts: claimed.length }, 'replay page');
  },
});
