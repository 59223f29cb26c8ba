import { partnerRoute } from '@/server/http/partner-route';
import { rollbackPin } from '@/server/pins/rollback';
import { pinResource } from '@/server/pins/schemas';

export const POST = partnerRoute({
  operationId: 'rollbackApiVersion',
  summary: "Roll this environment's version back",
  description: 'Returns the pin to the version the last upgrade left, within 72 hours of that upgrade.',
  tag: 'Versions',
  response: { status: 200, schema: pinResource, description: 'The pin, back on its previous version' },
  errors: [
    {
      status: 409,
      description: '`api_version_rollback_unavailable` (no upgrade to undo), `api_version_rollback_expired` (more than 72 hours after it)',
    },
  ],
  handler: ({ ctx }) => rollbackPin({ ctx }),
});
