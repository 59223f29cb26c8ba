import { partnerRoute } from '@/server/http/partner-route';
import { getTechnicalContacts } from '@/server/partners/get-contacts';
import { setTechnicalContactsInput, technicalContactsResource } from '@/server/partners/schemas';
import { setTechnicalContacts } from '@/server/partners/set-contacts';

// The partner's, not an environment's: a sandbox key and a production key read and change the same list.

export const GET = partnerRoute({
  operationId: 'getTechnicalContacts',
  summary: 'Your technical contacts',
  description:
    'Who is e-mailed when one of your webhook subscriptions starts failing, nears auto-disable, is disabled or recovers, and whether sandbox subscriptions notify at all.',
  tag: 'Contacts',
  response: { status: 200, schema: technicalContactsResource, description: 'The contacts, in order' },
  handler: ({ ctx }) => getTechnicalContacts({ ctx, input: { partnerId: ctx.actor.partnerId } }),
});

export const PUT = partnerRoute({
  operationId: 'setTechnicalContacts',
  summary: 'Replace your technical contacts',
  description:
    'The whole list (at most 10 addresses; empty mails nobody) and, optionally, `sandbox_notifications` (default false: sandbox subscriptions notify nobody).',
  tag: 'Contacts',
  body: setTechnicalContactsInput,
  response: { status: 200, schema: technicalContactsResource, description: 'The contacts now' },
  handler: ({ ctx, body }) => setTechnicalContacts({ ctx, input: { partnerId: ctx.actor.partnerId, ...body } }),
});
