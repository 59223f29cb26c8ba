import { partnerRoute } from '@/server/http/partner-route';
import { cancelReplay } from '@/server/replays/cancel';
import { replayParams, replayResource } from '@/server/replays/schemas';

export const POST = partnerRoute({
  operationId: 'cancelWebhookReplay',
  summary: 'Stop a replay',
  description: 'Nothing more is sent; deliveries already on their way finish, and the counts stay true.',
  tag: 'Webhooks',
  params: replayParams,
  response: { status: 200, schema: replayResource, description: 'The replay, cancelled' },
  errors: [
    { status: 404, description: 'No such replay of this subscription' },
    { status: 409, description: '`replay_not_running`: it already completed, failed or was cancelled' },
  ],
  handler: ({ ctx, params }) => cancelReplay({ ctx, input: params }),
});
