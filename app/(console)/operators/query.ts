import { graphql, type ResultOf } from '../../_console/graphql';

export const OperatorsPage = graphql(`
  query OperatorsPage {
    operators(first: 100) {
      nodes {
        id
        email
        role
        createdAt
        disabledAt
      }
    }
    sessions(first: 100) {
      nodes {
        id
        operatorEmail
        createdAt
        lastSeenAt
        expiresAt
        address
        current
      }
    }
  }
`);

export type OperatorRow = ResultOf<typeof OperatorsPage>['operators']['nodes'][number];
export type SessionRow = ResultOf<typeof OperatorsPage>['sessions']['nodes'][number];
