import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, type OperationDefinitionNode } from 'graphql';
import { primaryReads } from '@/server/context';
import type { GraphQLContext } from './context';

/**
 * The console's browse queries: pages over history (a list, or an aggregate over a window) that an
 * operator loads to look around, where a row a few seconds late shows on the next load. Their verbs
 * read through `ctx.read`, on the replica when there is one.
 */
export const BROWSE_FIELDS: ReadonlySet<string> = new Set([
  'orders',
  'events',
  'deliveries',
  'overview',
  'subscriptionHealth',
  '__typename',
]);

/**
 * Whether an operation may read on the replica: a query whose every root field is a browse. A
 * mutation reads what it wrote (the object it returns, with its attempts or timeline), and a lookup by
 * id (`order`, `delivery`, `event`, ...) is what the console opens right after an operator acted on
 * it: the order page after `advanceOrder` must show the move's event, the delivery page after
 * `redeliverEvent` the new attempt. Those operations read the primary throughout.
 */
export function readsOnReplica(operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'query') return false;
  return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && BROWSE_FIELDS.has(s.name.value));
}

/** Puts every read of an operation that is not a browse on the primary (before any resolver runs). */
export function replicaReads(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, contextValue }) {
          if (operation && !readsOnReplica(operation)) contextValue.ctx = primaryReads(contextValue.ctx);
        },
      };
    },
  };
}
