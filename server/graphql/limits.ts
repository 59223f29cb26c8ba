import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  getNamedType,
  getVariableValues,
  valueFromAST,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { errorOf, refusal, Verdicts, type Verdict } from './verdicts';

/** Deepest selection an operation may have: the console's deepest query (a partner's subscriptions' recent deliveries) is 7. */
export const MAX_DEPTH = 12;
/** Fields resolved, lists counted by `first` (or 10): a 100-row deliveries page with every attempt is about 20,000. */
export const MAX_COST = 50_000;
const UNBOUNDED_LIST = 10;
/**
 * Fields that scan history (a window of attempts or deliveries) rather than read rows by key: what one
 * costs grows with the history, not with the fields asked for, so the cost above cannot see it. Issue 21:
 * 1,000 aliased `overview(windowMinutes: 1440)` cost 25,000 by the estimator (the bound is 50,000) and
 * ran 45.7 s over a day of 20,000 attempts, while a partner's quotes answered 503 (p95 13.8 s). The
 * console's heaviest page asks for two (the overview and its latest failures).
 */
export const MAX_AGGREGATES = 3;
/** Marks a resolver's field as an aggregate: `@Extensions(AGGREGATE)` beside its `@Query`/`@FieldResolver`. */
export const AGGREGATE = { aggregate: 'per-row' } as const;
/** An aggregate whose resolver reads a whole list's rows in one statement (through a loader). */
export const BATCHED_AGGREGATE = { aggregate: 'batched' } as const;

// A field costs 1 plus its children's cost, times how many of them it returns: its `first`, or 10 for
// a list without one. A connection's edges and nodes are the connection's own `first`, not another 10.
const estimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (typeof args.first === 'number') return 1 + childComplexity * Math.max(1, args.first);
  return 1 + childComplexity * rowsOf(field.type, field.name);
};

/**
 * Refuses, before anything runs, an operation deeper than MAX_DEPTH, with more than MAX_AGGREGATES
 * aggregates, or costlier than MAX_COST. Variables are coerced first, as execution will coerce them: the
 * cost analysis coerces them too and threw on a client's wrong type (`{"first":"many"}`), a 500 with a
 * logged stack; it is the client's mistake, a 400 BAD_USER_INPUT.
 */
export function operationLimits(schema: GraphQLSchema): ApolloServerPlugin {
  const verdicts = new Verdicts();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, request, operation }) {
          if (!operation) return; // Apollo has already refused a document without the named operation.
          const refused = errorOf(verdicts.judge(request, () => limitsVerdict(schema, document, operation, request.variables)));
          if (refused) throw refused;
        },
      };
    },
  };
}

function limitsVerdict(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): Verdict {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 10 });
  if (coerced.errors) return { message: coerced.errors[0]!.message, extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } };
  const refused = shapeRefusal(schema, document, operation, coerced.coerced);
  if (refused) return refusal(refused);
  // getComplexity coerces the variables itself, and an enum's coerced value is not one it accepts.
  const cost = getComplexity({ schema, query: document, variables, operationName: operation.name?.value, estimators: [estimator] });
  if (cost > MAX_COST) {
    return {
      message: `This operation would cost ${cost}; at most ${MAX_COST} is allowed: ask for fewer rows (first) or fields.`,
      extensions: { code: 'query_too_costly', http: { status: 400 } },
    };
  }
  return null;
}

/**
 * The depth and aggregate bounds of an operation's text, as a GraphQL error to answer with, or undefined.
 * Safe on a document not yet validated (unknown fields are skipped, a fragment cycle is not followed),
 * so the executor runs it before Apollo validates: validating 1,000 aliased overviews (124 KB) took
 * 1.1 s of CPU, the partner API's event loop with it.
 */
export function shapeRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): GraphQLError | undefined {
  const depth = operationDepth(document, operation.name?.value);
  if (depth > MAX_DEPTH) {
    return new GraphQLError(`This operation is ${depth} levels deep; at most ${MAX_DEPTH} are allowed.`, {
      extensions: { code: 'query_too_deep', http: { status: 400 } },
    });
  }
  const aggregates = aggregatesOf(schema, document, operation, variables);
  const total = [...aggregates.values()].reduce((a, b) => a + b, 0);
  if (total > MAX_AGGREGATES) {
    const named = [...aggregates].map(([name, n]) => `${name} ×${n}`).join(', ');
    return new GraphQLError(
      `This operation asks for ${total} aggregates (${named}); at most ${MAX_AGGREGATES} are allowed in one operation, as each scans history: send them in separate requests.`,
      { extensions: { code: 'query_too_costly', http: { status: 400 } } },
    );
  }
  return undefined;
}

// Counts saturate here: a document nesting fragments can ask for more than a float holds exactly.
const SATURATED = 1e9;

/**
 * The aggregate fields the operation would resolve (`Type.field`), each with how many times it would
 * run: an alias and each use of a fragment count again. Under a list, a `batched` aggregate runs once for
 * the list (webhookSuccessRates reads a page's subscriptions in one statement); any other runs once per
 * row, counted as the list's `first` (or UNBOUNDED_LIST), as the cost counts rows.
 */
export function aggregatesOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): Map<string, number> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const add = (into: Map<string, number>, name: string, n: number) => into.set(name, Math.min(SATURATED, (into.get(name) ?? 0) + n));
  // A fragment used many times (or nested in itself many times over) is walked once per row count.
  const memo = new Map<string, Map<string, number>>();
  const walk = (set: SelectionSetNode | undefined, parent: GraphQLNamedType | null | undefined, rows: number, path: string[]) => {
    const found = new Map<string, number>();
    if (!set || !parent) return found;
    for (const s of set.selections) {
      let inner: Map<string, number>;
      if (s.kind === Kind.FIELD) {
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[s.name.value] : undefined;
        if (!field) continue;
        const mark = field.extensions.aggregate;
        if (mark) add(found, `${parent.name}.${field.name}`, mark === 'batched' ? 1 : rows);
        const first = firstOf(field, s, variables);
        const many = typeof first === 'number' ? Math.max(1, first) : rowsOf(field.type, field.name);
        inner = walk(s.selectionSet, getNamedType(field.type), Math.min(SATURATED, rows * many), path);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        inner = walk(s.selectionSet, s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent, rows, path);
      } else {
        const name = s.name.value;
        const fragment = fragments.get(name);
        if (!fragment || path.includes(name)) continue; // validation refuses an unknown fragment or a cycle
        const key = `${name}@${rows}`;
        inner = memo.get(key) ?? walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), rows, [...path, name]);
        memo.set(key, inner);
      }
      for (const [name, n] of inner) add(found, name, n);
    }
    return found;
  };
  const root =
    operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : null;
  return walk(operation.selectionSet, root, 1, []);
}

/** The field's `first`, from the operation's text or variables, or its default. */
function firstOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): unknown {
  const definition = field.args.find((a) => a.name === 'first');
  const given = node.arguments?.find((a) => a.name.value === 'first');
  if (!definition) return undefined;
  return given ? valueFromAST(given.value, definition.type, variables) : definition.defaultValue;
}

/** How many of its children a field without `first` returns, as the cost counts them. */
function rowsOf(type: GraphQLOutputType, name: string): number {
  return isListType(getNullableType(type)) && name !== 'edges' && name !== 'nodes' ? UNBOUNDED_LIST : 1;
}

/** The depth of the operation that will run; a fragment is measured once, and a fragment cycle is not followed. */
export function operationDepth(document: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, number>();
  const depthOf = (set: SelectionSetNode | undefined, path: string[]): number => {
    if (!set) return 0;
    let deepest = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) deepest = Math.max(deepest, s.selectionSet ? 1 + depthOf(s.selectionSet, path) : 1);
      else if (s.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(s.selectionSet, path));
      else if (!path.includes(s.name.value)) {
        const name = s.name.value;
        const depth = memo.get(name) ?? depthOf(fragments.get(name)?.selectionSet, [...path, name]);
        memo.set(name, depth);
        deepest = Math.max(deepest, depth);
      }
    }
    return deepest;
  };
  const operation = operationOf(document, operationName);
  return operation ? depthOf(operation.selectionSet, []) : 0;
}

/** The operation a request names, or its only one (as Apollo picks it). */
export function operationOf(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  return operations.find((o) => !operationName || o.name?.value === operationName) ?? operations[0];
}
