import { operatorRoute } from '@/server/http/operator-route';

// The operator API: every operation needs a session; server/graphql executes it.
const execute = operatorRoute({
  session: 'required',
  handler: ({ request, services, ctx, session }) => services.graphql(request, { ctx, session }),
});

export const GET = execute;
export const POST = execute;
