import { listEvents } from '@/server/events/list';
import { eventList, listEventsQuery } from '@/server/events/schemas';
import { partnerRoute } from '@/server/http/partner-route';

export const GET = partnerRoute({
  operationId: 'listEvents',
  summary: 'List events, newest first',
  description: 'Events are kept for EVENT_RETENTION_DAYS (30 by default).',
  tag: 'Events',
  query: listEventsQuery,
  response: { status: 200, schema: eventList, description: 'A page of events' },
  handler: ({ ctx, query }) => listEvents({ ctx, input: query }),
});
