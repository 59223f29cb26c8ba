import { FailureThrottle } from '@/server/auth/failure-throttle';
import { handoverStatus, revealHandover } from '@/server/credentials/hand-over';
import { RateLimitedError } from '@/server/errors';
import { errorResponse } from '@/server/http/error-response';
import { jsonResponse } from '@/server/http/json';
import { operatorRoute } from '@/server/http/operator-route';
import type { OperatorServices } from '@/server/http/operator-services';

// Public (the partner has no account): every attempt from an address takes a token, one a second with
// a burst of ten, so link tokens cannot be guessed at speed. Per process, like the partner API's throttle.
const attempts = new FailureThrottle(1);

/** Whether the link can still show the key (the page asks on load); shows and uses nothing. */
export const GET = operatorRoute({
  session: 'none',
  handler: ({ ctx, params, address, requestId, services }) =>
    throttled(address, requestId, services, async () =>
      jsonResponse(200, await handoverStatus({ ctx, input: { token: String(params.token ?? '') } })),
    ),
});

/** Opens a hand-over link: the client id and the key, once. A POST, so mail scanners' GETs reveal nothing. */
export const POST = operatorRoute({
  session: 'none',
  handler: ({ ctx, params, address, requestId, services }) =>
    throttled(address, requestId, services, async () => {
      const shown = await revealHandover({ ctx, input: { token: String(params.token ?? '') } });
      return jsonResponse(200, { client_id: shown.clientId, api_key: shown.apiKey, environment: shown.environment });
    }),
});

/** Every answer no-store (it may carry the key, or say whether a token is live), every attempt counted. */
async function throttled(
  address: string,
  requestId: string,
  services: OperatorServices,
  answer: () => Promise<Response>,
): Promise<Response> {
  let response: Response;
  try {
    const wait = attempts.retryAfter(address);
    if (wait > 0) throw new RateLimitedError(wait, {});
    attempts.fail(address);
    response = await answer();
  } catch (error) {
    response = errorResponse(error, requestId, services.log);
  }
  response.headers.set('cache-control', 'no-store');
  return response;
}
