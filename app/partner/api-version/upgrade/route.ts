import { partnerRoute } from '@/server/http/partner-route';
import { upgradePin } from '@/server/pins/upgrade';
import { pinResource, upgradePinInput } from '@/server/pins/schemas';

export const POST = partnerRoute({
  operationId: 'upgradeApiVersion',
  summary: "Upgrade this environment's version",
  description:
    'Pins this environment (the one of your key) to a newer version, the latest by default; try it with X-Service-Version first, and in the sandbox before production. Within 72 hours, POST /partner/api-version/rollback returns to the version left. Takes effect on every server within a few seconds. Webhook subscriptions keep their own `api_version`.',
  tag: 'Versions',
  body: upgradePinInput,
  response: { status: 200, schema: pinResource, description: 'The new pin' },
  errors: [{ status: 409, description: '`api_version_not_newer`: the version is not newer than the pin' }],
  handler: ({ ctx, body }) => upgradePin({ ctx, input: body }),
});
