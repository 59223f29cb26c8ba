import { jsonResponse } from '@/server/http/json';
import { readJsonBody } from '@/server/http/body';
import { operatorRoute } from '@/server/http/operator-route';
import { clearedSessionCookie, secureCookies, sessionCookie } from '@/server/http/session-cookie';
import { revokeSession } from '@/server/sessions/revoke';
import { signIn } from '@/server/sessions/sign-in';

/** Sign in: `{ email, password }` → the session cookie, and who is signed in. */
export const POST = operatorRoute({
  session: 'none',
  handler: async ({ request, services, ctx, address }) => {
    const body = await readJsonBody(request, services.env.REQUEST_BODY_TIMEOUT_MS);
    const input = (body?.value ?? {}) as { email?: unknown; password?: unknown };
    const signedIn = await signIn({
      ctx,
      input: {
        email: input.email as string,
        password: input.password as string,
        address,
        userAgent: request.headers.get('user-agent') ?? undefined,
      },
    });
    const { operator, expiresAt } = signedIn;
    return jsonResponse(
      200,
      { operator, expires_at: Math.floor(expiresAt.getTime() / 1000) },
      { 'set-cookie': sessionCookie(signedIn.token, expiresAt, secureCookies(services.env.PUBLIC_BASE_URL)) },
    );
  },
});

/** Sign out: ends this session everywhere and clears the cookie. */
export const DELETE = operatorRoute({
  session: 'required',
  handler: async ({ ctx, session, services }) => {
    await revokeSession({ ctx, input: { sessionId: session.sessionId } });
    return jsonResponse(200, { signed_out: true }, { 'set-cookie': clearedSessionCookie(secureCookies(services.env.PUBLIC_BASE_URL)) });
  },
});
