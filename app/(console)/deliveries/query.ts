import { graphql, type ResultOf, type VariablesOf } from '../../_console/graphql';

export const DeliveriesPage = graphql(`
  query DeliveriesPage($filter: DeliveryFilter, $first: Int!, $after: String) {
    deliveries(filter: $filter, first: $first, after: $after) {
      nodes {
        id
        eventId
        eventType
        subscriptionId
        partnerId
        partnerName
        environment
        orderId
        outcome
        attemptCount
        lastAttemptAt
        nextAttemptAt
        createdAt
        url
        attempts {
          responseStatus
          errorKind
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type DeliveryRow = ResultOf<typeof DeliveriesPage>['deliveries']['nodes'][number];
export type DeliveryFilter = NonNullable<VariablesOf<typeof DeliveriesPage>['filter']>;
