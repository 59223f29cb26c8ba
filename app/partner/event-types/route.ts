import { listEventTypes } from '@/server/events/list-types';
import { eventTypeList } from '@/server/events/schemas';
import { partnerRoute } from '@/server/http/partner-route';

export const GET = partnerRoute({
  operationId: 'listEventTypes',
  summary: 'The event catalog',
  description: 'Every event type, with a description and an example payload.',
  tag: 'Events',
  response: { status: 200, schema: eventTypeList, description: 'All event types' },
  handler: async () => listEventTypes(),
});
