import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  getNullableType,
  isListType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';

/** Deepest selection an operation may have: the console's deepest query (a partner's subscriptions' recent deliveries) is 7. */
export const MAX_DEPTH = 12;
/** Fields resolved, lists counted by `first` (or 10): a 100-row deliveries page with every attempt is about 20,000. */
export const MAX_COST = 50_000;
const UNBOUNDED_LIST = 10;

// A field costs 1 plus its children's cost, times how many of them it returns: its `first`, or 10 for
// a list without one. A connection's edges and nodes are the connection's own `first`, not another 10.
const estimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (typeof args.first === 'number') return 1 + childComplexity * Math.max(1, args.first);
  const many = isListType(getNullableType(field.type)) && field.name !== 'edges' && field.name !== 'nodes';
  return 1 + childComplexity * (many ? UNBOUNDED_LIST : 1);
};

/** Refuses, before anything runs, an operation deeper than MAX_DEPTH or costlier than MAX_COST. */
export function operationLimits(schema: GraphQLSchema): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, request }) {
          const depth = operationDepth(document, request.operationName);
          if (depth > MAX_DEPTH) {
            throw new GraphQLError(`This operation is ${depth} levels deep; at most ${MAX_DEPTH} are allowed.`, {
              extensions: { code: 'query_too_deep', http: { status: 400 } },
            });
          }
          const cost = getComplexity({
            schema,
            query: document,
            variables: request.variables,
            operationName: request.operationName,
            estimators: [estimator],
          });
          if (cost > MAX_COST) {
            throw new GraphQLError(
              `This operation would cost ${cost}; at most ${MAX_COST} is allowed: ask for fewer rows (first) or fields.`,
              {
                extensions: { code: 'query_too_costly', http: { status: 400 } },
              },
            );
          }
        },
      };
    },
  };
}

/** The depth of the operation that will run (validation has already refused fragment cycles). */
export function operationDepth(document: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const depthOf = (set: SelectionSetNode | undefined): number => {
    if (!set) return 0;
    let deepest = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) deepest = Math.max(deepest, s.selectionSet ? 1 + depthOf(s.selectionSet) : 1);
      else if (s.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(s.selectionSet));
      else deepest = Math.max(deepest, depthOf(fragments.get(s.name.value)?.selectionSet));
    }
    return deepest;
  };
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const chosen = operations.find((o) => !operationName || o.name?.value === operationName) ?? operations[0];
  return chosen ? depthOf(chosen.selectionSet) : 0;
}
