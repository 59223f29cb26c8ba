import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

/**
 * Typed GraphQL operations for the console, checked against the committed schema.graphql:
 * `npm run graphql:schema` regenerates graphql-env.d.ts beside it (a test compares both).
 */
export const graphql = initGraphQLTada<{ introspection: introspection; scalars: { DateTimeISO: string; ID: string } }>();

export type { ResultOf, VariablesOf } from 'gql.tada';
