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

/** Partners that still speak an API version older than the latest, with where they do. */
export const OlderVersionsPage = graphql(`
  query PartnersOnOlderVersions($after: String) {
    apiVersions {
      id
      latest
    }
    partners(olderApiVersion: true, after: $after, first: 25) {
      nodes {
        id
        name
        apiVersions {
          environment
          version
          firstRequestPins
        }
        subscriptionsOnOlderApiVersions
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type OlderVersionRow = ResultOf<typeof OlderVersionsPage>['partners']['nodes'][number];
