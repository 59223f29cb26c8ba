import { graphql, type ResultOf, type VariablesOf } from '../../_console/graphql';

export const AccessRequestsPage = graphql(`
  query AccessRequestsPage($status: AccessRequestStatus) {
    accessRequests(first: 100, status: $status) {
      nodes {
        id
        company
        contactName
        contactEmail
        website
        expectedMonthlyOrders
        useCase
        status
        confirmedAt
        decidedBy
        decidedAt
        reason
        partnerId
      }
    }
  }
`);

export type AccessRequestRow = ResultOf<typeof AccessRequestsPage>['accessRequests']['nodes'][number];
export type Status = NonNullable<VariablesOf<typeof AccessRequestsPage>['status']>;
