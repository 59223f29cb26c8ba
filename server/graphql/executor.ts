import { ApolloServer, HeaderMap, type BaseContext } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { Ctx, Deps, OperatorActor } from '@/server/context';
import { AppError, ValidationError } from '@/server/errors';
import type { OperatorSession } from '@/server/sessions/authenticate';
import type { GraphQLContext } from './context';
import { formatError, isUnexpected } from './errors';
import { operationLimits } from './limits';
import { operatorSchema } from './schema';

export type GraphQLExecutor = (request: Request, context: { ctx: Ctx<OperatorActor>; session: OperatorSession }) => Promise<Response>;

const MAX_BODY_BYTES = 256 * 1024;

/**
 * Apollo Server over the operator schema, executing Web-standard requests the route hands it.
 * CSRF prevention stays on (a `text/plain` or form POST, which a browser sends cross-site without
 * asking, is refused); introspection and the landing page exist only when NODE_ENV=development.
 */
export async function createGraphQLExecutor(deps: Pick<Deps, 'env' | 'log'>): Promise<{ execute: GraphQLExecutor; stop(): Promise<void> }> {
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
    plugins: [
      operationLimits(schema),
      ...(development ? [] : [ApolloServerPluginLandingPageDisabled()]),
      {
        async requestDidStart() {
          return {
            async didEncounterErrors({ errors, contextValue }) {
              for (const err of errors) {
                if (isUnexpected(err)) contextValue.ctx.log.error({ request_id: contextValue.ctx.requestId, err }, 'graphql error');
              }
            },
          };
        },
      },
    ],
  });
  await apollo.start();

  const execute: GraphQLExecutor = async (request, { ctx, session }) => {
    const url = new URL(request.url);
    const headers = new HeaderMap();
    request.headers.forEach((value, name) => headers.set(name, value));
    const result = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: request.method, headers, search: url.search, body: await bodyOf(request) },
      context: async () => ({ ctx, session, loaders: new Map() }),
    });
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
