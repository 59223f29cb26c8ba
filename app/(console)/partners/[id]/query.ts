import { graphql, type ResultOf } from '../../../_console/graphql';

/** Everything the partner page shows, in one request; each list pages on its own cursor (in the URL). */
export const PartnerPage = graphql(`
  query PartnerPage($id: ID!, $credentialsAfter: String, $allowlistAfter: String, $webhooksAfter: String) {
    apiVersions {
      id
      latest
    }
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
      apiVersions {
        environment
        version
        firstRequestPins
        previousVersion
        pinnedAt
        changedAt
        rollbackUntil
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
          apiVersion
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

/** The latest version of the partner API, as the page read it. */
export function latestOf(versions: ResultOf<typeof PartnerPage>['apiVersions']): string {
  return versions.find((v) => v.latest)?.id ?? '';
}

/** Sections call this after a change, so the page reads it back from the server. */
export type Refresh = () => void;
