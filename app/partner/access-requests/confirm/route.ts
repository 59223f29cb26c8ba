import { confirmAccessRequest } from '@/server/access/confirm';
import { accessConfirmed, confirmAccessInput } from '@/server/access/schemas';
import { publicPostRoute } from '@/server/http/public-route';

export const POST = publicPostRoute({
  operationId: 'confirmAccessRequest',
  summary: 'Confirm the contact address of an access request',
  description: 'No credentials. `token` is the last segment of the e-mailed link. The request then goes to the operators.',
  tag: 'Access',
  body: confirmAccessInput,
  response: { status: 200, schema: accessConfirmed, description: 'Confirmed' },
  errors: [
    { status: 400, description: 'Malformed JSON or a missing token' },
    {
      status: 409,
      description: 'The link is unknown (`access_link_unknown`), used (`access_link_used`) or expired (`access_link_expired`)',
    },
  ],
  handler: ({ ctx, body }) => confirmAccessRequest({ ctx, input: body }),
});
