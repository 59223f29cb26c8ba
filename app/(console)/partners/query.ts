import { graphql, type ResultOf } from '../../_console/graphql';

export const PartnersPage = graphql(`
  query PartnersPage($search: String, $after: String) {
    partners(search: $search, after: $after, first: 25) {
      nodes {
        id
        name
        createdAt
        goLive {
          status
        }
        rateLimit {
          perSecond
          override
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type PartnerRow = ResultOf<typeof PartnersPage>['partners']['nodes'][number];
