import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { listReplays } from '@/server/replays/list';
import { listReplaysQuery, replayList } from '@/server/replays/schemas';

export const GET = partnerRoute({
  operationId: 'listWebhookReplays',
  summary: "This subscription's replays, newest first",
  tag: 'Webhooks',
  params: idParams,
  query: listReplaysQuery,
  response: { status: 200, schema: replayList, description: 'A page of replays' },
  errors: [{ status: 404, description: 'No subscription with this id for this partner and environment' }],
  handler: ({ ctx, params, query }) => listReplays({ ctx, input: { ...query, id: params.id } }),
});
