import { partnerRoute } from '@/server/http/partner-route';
import { getReplay } from '@/server/replays/get';
import { replayParams, replayResource } from '@/server/replays/schemas';

export const GET = partnerRoute({
  operationId: 'getWebhookReplay',
  summary: 'A replay and its progress',
  tag: 'Webhooks',
  params: replayParams,
  response: { status: 200, schema: replayResource, description: 'The replay' },
  errors: [{ status: 404, description: 'No such replay of this subscription' }],
  handler: ({ ctx, params }) => getReplay({ ctx, input: params }),
});
