import { graphql, type ResultOf } from '../../../_console/graphql';

/** Everything the partner page shows, in one request; each list pages on its own cursor (in the URL). */
export const PartnerPage = graphql(`
  query PartnerPage($id: ID!, $credentialsAfter: String, $allowlistAfter: String, $webhooksAfter: String) {
    partner(id: $id) {
      id
      name
      createdAt
      goLive {
        status
        note
      }
      rateLimit {
        override
        perSecond
        burst
      }
      credentials(first: 25, after: $credentialsAfter) {
        nodes {
          id
          clientId
          environment
          keyLast4
          createdAt
          revokedAt
          handover {
            email
            createdAt
            expiresAt
            usedAt
            endedAt
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
      allowlist(first: 25, after: $allowlistAfter) {
        nodes {
          id
          cidr
          label
          createdAt
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
      webhookSubscriptions(first: 25, after: $webhooksAfter) {
        nodes {
          id
          url
          environment
          status
          disabledReason
          failingSince
          successRate {
            attempts
            succeeded
            ratio
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

export type PartnerData = ResultOf<typeof PartnerPage>['partner'];

/** Sections call this after a change, so the page reads it back from the server. */
export type Refresh = () => void;
