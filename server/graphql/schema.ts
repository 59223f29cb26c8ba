import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { authChecker } from './auth-checker';
import { RESOLVERS } from './resolvers';

let schema: GraphQLSchema | undefined;

/** The operator API's schema, built once per process from the resolvers. Validation is zod's, in the verbs. */
export function operatorSchema(): GraphQLSchema {
  schema ??= buildSchemaSync({ resolvers: RESOLVERS, authChecker, validate: false });
  return schema;
}

/** The schema as committed in server/graphql/schema.graphql (`npm run graphql:schema` writes it; a test compares). */
export function printOperatorSchema(): string {
  return printSchema(lexicographicSortSchema(operatorSchema())) + '\n';
}
