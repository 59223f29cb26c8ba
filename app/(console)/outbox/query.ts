import { graphql, type ResultOf } from '../../_console/graphql';

export const OutboxPage = graphql(`
  query OutboxPage($after: String) {
    mailMessages(first: 25, after: $after) {
      nodes {
        id
        to
        subject
        kind
        status
        attempts
        lastError
        createdAt
        sentAt
        body
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type MailRow = ResultOf<typeof OutboxPage>['mailMessages']['nodes'][number];
