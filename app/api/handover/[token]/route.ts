import { FailureThrottle } from '@/server/auth/failure-throttle';
import { revealHandover } from '@/server/credentials/hand-over';
import { RateLimitedError } from '@/server/errors';
import { errorResponse } from '@/server/http/error-response';
import { jsonResponse } from '@/server/http/json';
import { operatorRoute } from '@/server/http/operator-route';

// Public (the partner has no account): every attempt from an address takes a token, one a second with
// a burst of ten, so link tokens cannot be guessed at speed. Per process, like the partner API's throttle.
const attempts = new FailureThrottle(1);

/** Opens a hand-over link: the client id and the key, once. A POST, so mail scanners' GETs reveal nothing. */
export const POST = operatorRoute({
  session: 'none',
  handler: async ({ ctx, params, address, requestId, services }) => {
    let response: Response;
    try {
      const wait = attempts.retryAfter(address);
      if (wait > 0) throw new RateLimitedError(wait, {});
      attempts.fail(address);
      const shown = await revealHandover({ ctx, input: { token: String(params.token ?? '') } });
      response = jsonResponse(200, { client_id: shown.clientId, api_key: shown.apiKey, environment: shown.environment });
    } catch (error) {
      response = errorResponse(error, requestId, services.log);
    }
    response.headers.set('cache-control', 'no-store');
    return response;
  },
});
