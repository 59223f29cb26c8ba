import { requestAccess } from '@/server/access/request';
import { accessRequestAccepted, accessRequestInput } from '@/server/access/schemas';
import { publicPostRoute } from '@/server/http/public-route';

export const POST = publicPostRoute({
  operationId: 'requestAccess',
  summary: 'Ask for sandbox access',
  description:
    'No credentials. Stores the request and e-mails `contact_email` a one-time link (24 h) to confirm the address; operators see the request once it is confirmed. The answer is the same whether or not the address or company is already known.',
  tag: 'Access',
  body: accessRequestInput,
  response: { status: 202, schema: accessRequestAccepted, description: 'Accepted: a confirmation link is on its way' },
  errors: [
    { status: 400, description: 'Malformed JSON or an invalid field (`param` names it; `errors` lists every one)' },
    { status: 413, description: 'Body over 64 KiB' },
    { status: 415, description: 'Body is not application/json' },
    { status: 429, description: 'Too many requests from this address (5 an hour); see Retry-After' },
  ],
  handler: ({ ctx, body, address }) => requestAccess({ ctx, input: { ...body, sourceAddress: address } }),
});
