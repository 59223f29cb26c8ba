import DataLoader from 'dataloader';
import type { Ctx, OperatorActor } from '@/server/context';
import type { OperatorSession } from '@/server/sessions/authenticate';
import type { AggregateSlots } from './aggregate-slots';

/** What every resolver receives: the signed-in operator's ctx, their session, and this request's loaders. */
export interface GraphQLContext {
  ctx: Ctx<OperatorActor>;
  session: OperatorSession;
  loaders: Map<string, DataLoader<unknown, unknown>>;
  /** Aborts at GRAPHQL_TIMEOUT_MS; `ctx`'s statements are cancelled then. */
  signal: AbortSignal;
  /** The process's aggregate slots (see inAggregateSlot). */
  aggregates: AggregateSlots;
}

/** Runs an aggregate's work (a verb scanning history) in one of the process's slots, waiting at most until the deadline. */
export function inAggregateSlot<T>(context: GraphQLContext, work: () => Promise<T>): Promise<T> {
  return context.aggregates.run(context.signal, work);
}

/**
 * This request's loader named `name`: a list of 50 deliveries asks for their attempts once, not 50
 * times. Loaders live as long as one request, so nothing is cached across operators.
 */
export function loader<K, V>(context: GraphQLContext, name: string, batch: (keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
  let found = context.loaders.get(name) as DataLoader<K, V> | undefined;
  if (!found) {
    found = new DataLoader<K, V>(batch, { maxBatchSize: 500 });
    context.loaders.set(name, found as DataLoader<unknown, unknown>);
  }
  return found;
}
