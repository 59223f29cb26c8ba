import { partnerRoute } from '@/server/http/partner-route';
import { getPin } from '@/server/pins/get';
import { pinResource } from '@/server/pins/schemas';

export const GET = partnerRoute({
  operationId: 'getApiVersion',
  summary: "This environment's version",
  description:
    'The version requests without X-Service-Version are rendered in: pinned at the environment’s first request (sandbox and production apart), changed by an upgrade or a rollback.',
  tag: 'Versions',
  response: { status: 200, schema: pinResource, description: 'The pin' },
  handler: ({ ctx }) => getPin({ ctx }),
});
