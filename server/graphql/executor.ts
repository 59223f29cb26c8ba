import { ApolloServer, HeaderMap, type BaseContext } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import { boundedBy, type Ctx, type Deps, type OperatorActor } from '@/server/context';
import { AppError, isOperationTimeout, OperationTimeoutError, ValidationError } from '@/server/errors';
import type { OperatorSession } from '@/server/sessions/authenticate';
import { AggregateSlots } from './aggregate-slots';
import type { GraphQLContext } from './context';
import { formatError, isUnexpected } from './errors';
import { operationLimits, operationOf, shapeRefusal } from './limits';
import { replicaReads } from './replica-reads';
import { refusal, Verdicts } from './verdicts';
import { operatorSchema } from './schema';

export type GraphQLExecutor = (request: Request, context: { ctx: Ctx<OperatorActor>; session: OperatorSession }) => Promise<Response>;

const MAX_BODY_BYTES = 256 * 1024;
// After the deadline aborts, the operation's statements are cancelled and any it asks for fail at once,
// so execution ends within milliseconds; this bounds a resolver waiting on something else.
const AFTER_DEADLINE_MS = 1000;

/**
 * Apollo Server over the operator schema, executing Web-standard requests the route hands it.
 * CSRF prevention stays on (a `text/plain` or form POST, which a browser sends cross-site without
 * asking, is refused); introspection and the landing page exist only when NODE_ENV=development.
 * Operations run on the operator API's own pool (server/boot/runtime.ts operatorPool; the browse
 * queries' reads on its replica pool, see replica-reads.ts), each with
 * GRAPHQL_TIMEOUT_MS: then its database statements are cancelled (a mutation's transaction rolls back
 * whole), and it answers 503 with `operation_timeout` on whatever did not finish.
 */
export async function createGraphQLExecutor(
  deps: Pick<Deps, 'env' | 'log'> & { operatorPool: Pick<Deps, 'db' | 'sql' | 'read'> },
): Promise<{ execute: GraphQLExecutor; stop(): Promise<void> }> {
  const schema = operatorSchema();
  const development = deps.env.NODE_ENV === 'development';
  const apollo = new ApolloServer<GraphQLContext & BaseContext>({
    schema,
    csrfPrevention: true,
    // The process's own shutdown stops Apollo (server/boot); Apollo's signal handlers would race it.
    stopOnTerminationSignals: false,
    introspection: development,
    includeStacktraceInErrorResponses: false,
    formatError,
    // Compact: Apollo's default indents every answer (2 spaces), ~0.5 ms of a deliveries page's CPU and a third
    // more bytes, for a client that is a program.
    stringifyResult: (value) => JSON.stringify(value),
    plugins: [
      // Its cache hints are computed field by field through a wrapper on every resolver (a resolved field's cost
      // doubled in a deliveries page's profile), for a header this executor sets itself: operator answers are
      // never cached (no-store below).
      ApolloServerPluginCacheControlDisabled(),
      operationLimits(schema),
      replicaReads(),
      ...(development ? [] : [ApolloServerPluginLandingPageDisabled()]),
      {
        async requestDidStart() {
          return {
            async didEncounterErrors({ errors, contextValue, response }) {
              for (const err of errors) {
                if (isUnexpected(err)) contextValue.ctx.log.error({ request_id: contextValue.ctx.requestId, err }, 'graphql error');
              }
              // Work stopped at the deadline (or a statement Postgres cancelled): the service's limit, not the client's error.
              if (errors.some((err) => isOperationTimeout(unwrapResolverError(err)))) response.http.status = 503;
            },
          };
        },
      },
    ],
  });
  await apollo.start();
  const aggregates = new AggregateSlots(deps.env.GRAPHQL_AGGREGATE_CONCURRENCY);
  const shapes = new Verdicts();
  const limitMs = deps.env.GRAPHQL_TIMEOUT_MS;

  const execute: GraphQLExecutor = async (request, { ctx, session }) => {
    const url = new URL(request.url);
    const headers = new HeaderMap();
    request.headers.forEach((value, name) => headers.set(name, value));
    const body = await bodyOf(request);
    const refused = refusedBeforeValidation(schema, shapes, body, url.searchParams);
    if (refused) return refused;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new OperationTimeoutError(limitMs)), limitMs);
    const { db, sql, read } = deps.operatorPool;
    const bounded = boundedBy({ ...ctx, db, sql, read }, deadline.signal);
    let result: Awaited<ReturnType<typeof apollo.executeHTTPGraphQLRequest>> | undefined;
    try {
      result = await settledOrAbandoned(
        apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: request.method, headers, search: url.search, body },
          context: async () => ({ ctx: bounded, session, loaders: new Map(), signal: deadline.signal, aggregates }),
        }),
        deadline.signal,
      );
    } finally {
      clearTimeout(timer);
    }
    if (deadline.signal.aborted) {
      // The client asked for more than the limit allows, or the database is slow: a warning, not a stack.
      ctx.log.warn({ request_id: ctx.requestId, operator_id: ctx.actor.operatorId, limit_ms: limitMs }, 'graphql operation timed out');
    }
    if (!result) {
      const error = new OperationTimeoutError(limitMs);
      return Response.json(
        { errors: [{ message: error.message, extensions: { code: error.code } }] },
        { status: 503, headers: { 'cache-control': 'no-store' } },
      );
    }
    const responseHeaders = new Headers();
    for (const [name, value] of result.headers) responseHeaders.set(name, value);
    responseHeaders.set('cache-control', 'no-store');
    if (result.body.kind === 'complete')
      return new Response(result.body.string, { status: result.status ?? 200, headers: responseHeaders });
    const chunks = result.body.asyncIterator;
    const stream = new ReadableStream<string>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
    });
    return new Response(stream.pipeThrough(new TextEncoderStream()), { status: result.status ?? 200, headers: responseHeaders });
  };
  return { execute, stop: () => apollo.stop() };
}

/**
 * The depth and aggregate bounds, checked before Apollo validates the document (its rules walk every
 * node, 1.1 s of CPU for 1,000 aliased overviews); a document that does not parse is left to Apollo to
 * answer. The operationLimits plugin checks the same after validation, with the coerced variables.
 */
function refusedBeforeValidation(schema: GraphQLSchema, verdicts: Verdicts, body: unknown, search: URLSearchParams): Response | undefined {
  const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : Object.fromEntries(search);
  const { query, operationName } = fields;
  if (typeof query !== 'string') return undefined;
  const variables = fields.variables && typeof fields.variables === 'object' ? (fields.variables as Record<string, unknown>) : {};
  const verdict = verdicts.judge({ query, operationName, variables }, () => {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return null;
    }
    const operation = operationOf(document, typeof operationName === 'string' ? operationName : undefined);
    const error = operation && shapeRefusal(schema, document, operation, variables);
    return error ? refusal(error) : null;
  });
  if (!verdict) return undefined;
  return Response.json(
    { errors: [{ message: verdict.message, extensions: { code: verdict.extensions.code } }] },
    { status: 400, headers: { 'cache-control': 'no-store' } },
  );
}

/** The execution's answer, or undefined when it is still running AFTER_DEADLINE_MS after the deadline. */
async function settledOrAbandoned<T>(execution: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<undefined>((resolve) => {
    const wait = () => (timer = setTimeout(() => resolve(undefined), AFTER_DEADLINE_MS));
    if (signal.aborted) wait();
    else signal.addEventListener('abort', wait, { once: true });
  });
  try {
    return await Promise.race([execution, abandoned]);
  } finally {
    clearTimeout(timer);
  }
}

/** JSON bodies parsed (Apollo wants the value); anything else passed as text, for Apollo's CSRF and content-type checks to refuse. */
async function bodyOf(request: Request): Promise<unknown> {
  if (request.method !== 'POST' || !request.body) return undefined;
  const text = await readCapped(request.body);
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([{ param: 'body', code: 'invalid_json', message: 'The body is not valid JSON.' }]);
  }
}

async function readCapped(body: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const chunk = read.value;
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new AppError('payload_too_large', 'body_too_large', `A GraphQL request body is at most ${MAX_BODY_BYTES} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
