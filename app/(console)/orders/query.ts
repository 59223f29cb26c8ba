import { graphql, type ResultOf } from '../../_console/graphql';

export const OrdersPage = graphql(`
  query OrdersPage($filter: OrderFilter, $after: String) {
    orders(filter: $filter, first: 25, after: $after) {
      nodes {
        id
        externalId
        partnerId
        partnerName
        environment
        status
        createdAt
        updatedAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type OrderRow = ResultOf<typeof OrdersPage>['orders']['nodes'][number];
