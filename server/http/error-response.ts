import { z } from 'zod';
import { AppError, DatabaseUnavailableError, isDatabaseUnavailable, type ErrorKind } from '../errors';
import type { Logger } from '../logger';
import { answerResponse, jsonAnswer, type Answer } from './exchange';

/** The JSON envelope of every error answer, as the OpenAPI document describes it. */
export const errorEnvelope = z
  .object({
    error: z.object({
      type: z.enum([
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'rate_limit_error',
        'idempotency_error',
        'api_error',
      ]),
      code: z.string().meta({ example: 'parameter_missing' }),
      message: z.string(),
      param: z.string().optional().meta({ description: 'The first invalid field, dotted (pickup.lat)' }),
      errors: z
        .array(z.object({ param: z.string(), code: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'Every invalid field, when the request had several' }),
      request_id: z.string().meta({ description: 'Equals the X-Request-Id response header' }),
    }),
  })
  .meta({ id: 'Error' });

// The one table from error kind to HTTP status and envelope type.
const STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  request_timeout: 408,
  unavailable: 503,
};

const TYPE: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  unauthenticated: 'authentication_error',
  forbidden: 'permission_error',
  not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  conflict: 'invalid_request_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  unprocessable: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  request_timeout: 'invalid_request_error',
  unavailable: 'api_error',
};

export interface ErrorBody {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    errors?: { param: string; code: string; message: string }[];
    request_id: string;
    [extra: string]: unknown;
  };
}

/** Maps anything thrown to a JSON error response. Unknown errors are logged with their cause and answered with a bare 500. */
export function errorResponse(error: unknown, requestId: string, log: Logger, headers: Record<string, string> = {}): Response {
  return answerResponse(errorAnswer(error, requestId, log, headers));
}

/** errorResponse's answer, not yet a Response: what the route wrappers write to the socket themselves. */
export function errorAnswer(error: unknown, requestId: string, log: Logger, headers: Record<string, string> = {}): Answer {
  let appError: AppError | undefined = error instanceof AppError ? error : undefined;
  if (!appError && isDatabaseUnavailable(error)) {
    log.warn({ request_id: requestId, err: error }, 'database unavailable');
    appError = new DatabaseUnavailableError();
  }
  if (!appError) {
    log.error({ request_id: requestId, err: error }, 'unhandled error');
    const body: ErrorBody = {
      error: {
        type: 'api_error',
        code: 'internal_error',
        message: 'An internal error occurred; it has been logged.',
        request_id: requestId,
      },
    };
    return jsonAnswer(500, body, headers);
  }
  const { param, errors, extra } = appError.details;
  const idempotencyError = appError.code.startsWith('idempotency_');
  const body: ErrorBody = {
    error: {
      type: idempotencyError ? 'idempotency_error' : TYPE[appError.kind],
      code: appError.code,
      message: appError.message,
      ...(param ? { param } : {}),
      ...(errors && errors.length > 0 ? { errors } : {}),
      ...extra,
      request_id: requestId,
    },
  };
  return jsonAnswer(STATUS[appError.kind], body, appError.details.headers ? Object.assign({}, headers, appError.details.headers) : headers);
}
