import { REPLAY_PAGE } from '@/server/outbox/queues';
import { runReplayPage } from '@/server/replays/run-page';
import { defineJob, jobContext } from './definition';

export const replayPageJob = defineJob({
  queue: REPLAY_PAGE,
  // One page is one transaction; a dead worker's page is retried after its expiry and resumes from the cursor.
  settings: { retryLimit: 20, retryDelay: 1, expireInSeconds: 30 },
  work: { pollingIntervalSeconds: 0.5 },
  async handle(data, deps) {
    const outcome = await runReplayPage({ ctx: jobContext(deps, REPLAY_PAGE.name), input: { replayId: data.replay_id, step: data.step } });
    deps.log.debug({ replay_id: data.replay_id, step: data.step, outcome }, 'replay page');
  },
});
