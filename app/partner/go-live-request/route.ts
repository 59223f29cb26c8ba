import { partnerRoute } from '@/server/http/partner-route';
import { goLiveRequestResource, requestGoLive, requestGoLiveInput } from '@/server/onboarding/request-go-live';

export const POST = partnerRoute({
  operationId: 'requestGoLive',
  summary: 'Ask for the go-live review',
  description:
    'With sandbox credentials: asks an operator to review your sandbox record and issue production credentials. An optional `note` tells the reviewer what to look at.',
  tag: 'Onboarding',
  body: requestGoLiveInput,
  response: { status: 202, schema: goLiveRequestResource, description: 'The review, now requested' },
  errors: [
    { status: 403, description: 'Production credentials (`sandbox_credentials_required`)' },
    { status: 409, description: 'The review is already requested or approved (`go_live_already_requested`, `go_live_already_approved`)' },
  ],
  handler: ({ ctx, body }) => requestGoLive({ ctx, input: body }),
});
