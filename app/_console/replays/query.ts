import { graphql, type ResultOf, type VariablesOf } from '../graphql';

export const ReplaysQuery = graphql(`
  query Replays($filter: ReplayFilter, $first: Int!, $after: String) {
    replays(filter: $filter, first: $first, after: $after) {
      nodes {
        id
        subscriptionId
        partnerId
        environment
        status
        phase
        settled
        since
        until
        eventTypes
        only
        matched
        enqueued
        delivered
        failed
        skipped
        pending
        retrying
        nextRetryAt
        requestedBy
        createdAt
        completedAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type Replay = ResultOf<typeof ReplaysQuery>['replays']['nodes'][number];
export type ReplayFilter = VariablesOf<typeof ReplaysQuery>['filter'];
