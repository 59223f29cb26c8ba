import { idParams } from '@/server/common-schemas';
import { alternative, partnerRoute } from '@/server/http/partner-route';
import { createReplay } from '@/server/replays/create';
import { createReplayInput, replayDryRun, replayResource } from '@/server/replays/schemas';

export const POST = partnerRoute({
  operationId: 'replayWebhookEvents',
  summary: 'Replay past events to this subscription',
  description:
    'Sends the events of a window (at most 30 days, none in the future) again, with their original ids: all of them, those whose delivery failed, or those never sent to it. Paced, resumable, cancellable; one at a time per subscription. `dry_run` counts and sends nothing.',
  tag: 'Webhooks',
  params: idParams,
  body: createReplayInput,
  response: { status: 202, schema: replayResource, description: 'The replay, queued' },
  alternative: { status: 200, schema: replayDryRun, description: 'A dry run: what the replay would send' },
  errors: [
    { status: 404, description: 'No subscription with this id for this partner and environment' },
    { status: 409, description: '`replay_in_progress` (names it), `subscription_disabled`, or an Idempotency-Key in use' },
  ],
  handler: async ({ ctx, params, body }) => {
    const answer = await createReplay({ ctx, input: { ...body, webhookId: params.id } });
    return answer.kind === 'dry_run' ? alternative(answer.preview) : answer.replay;
  },
});
