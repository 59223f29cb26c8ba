import { graphql, type ResultOf } from '../../_console/graphql';

export const AuditLogPage = graphql(`
  query AuditLogPage($filter: AuditFilter, $after: String) {
    auditLog(filter: $filter, first: 50, after: $after) {
      nodes {
        id
        at
        actor
        actorEmail
        action
        targetType
        targetId
        before
        after
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type AuditEntry = ResultOf<typeof AuditLogPage>['auditLog']['nodes'][number];
