import { graphql, type ResultOf } from '../../_console/graphql';

export const EventsPage = graphql(`
  query EventsPage($filter: EventFilter, $after: String) {
    events(filter: $filter, first: 25, after: $after) {
      nodes {
        id
        type
        objectId
        partnerId
        partnerName
        environment
        createdAt
        envelope
        deliveries {
          id
          subscriptionId
          outcome
          attemptCount
          nextAttemptAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type EventRow = ResultOf<typeof EventsPage>['events']['nodes'][number];
