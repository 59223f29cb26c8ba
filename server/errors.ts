// Domain errors are typed values; server/http/error-response.ts maps each kind to one HTTP status
// and the JSON envelope, in one place. Anything else thrown becomes a generic 500.

export type ErrorKind =
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'request_timeout'
  | 'unavailable';

export interface FieldError {
  param: string;
  code: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details: { param?: string; errors?: FieldError[]; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[]) {
    const first = errors[0] ?? { param: '', code: 'parameter_invalid', message: 'Invalid request.' };
    super('invalid_request', first.code, first.message, { param: first.param || undefined, errors });
  }
}

export class AuthenticationError extends AppError {
  constructor() {
    // One message for missing, unknown, revoked and mismatched credentials: no oracle for attackers.
    super('unauthenticated', 'invalid_credentials', 'Missing or invalid X-API-Key / X-Client-ID.');
  }
}

export class ForbiddenError extends AppError {
  constructor(code: string, message: string) {
    super('forbidden', code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super('not_found', 'resource_missing', id ? `No such ${resource}: '${id}'.` : `No such ${resource}.`, {
      param: id ? 'id' : undefined,
    });
  }
}

export class ConflictError extends AppError {
  constructor(code: string, message: string, extra?: Record<string, unknown>) {
    super('conflict', code, message, { extra });
  }
}

export class UnprocessableError extends AppError {
  constructor(code: string, message: string, param?: string) {
    super('unprocessable', code, message, { param });
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, headers: Record<string, string>) {
    super('rate_limited', 'rate_limited', 'Too many requests: slow down and retry after the Retry-After delay.', {
      headers: { ...headers, 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/**
 * A window, or an event, before the oldest retained moment (server/history/window.ts): its events are dropped with
 * their week, or about to be. The answer names the moment (ISO and Unix seconds), so a client can narrow its window.
 */
export class HistoryNotRetainedError extends AppError {
  constructor(param: string, oldest: Date, days: number) {
    const unix = Math.ceil(oldest.getTime() / 1000);
    super(
      'unprocessable',
      'history_not_retained',
      `Events are kept ${days} days (EVENT_RETENTION_DAYS): the oldest retained moment is ${oldest.toISOString()} (${unix}), and ${param} is before it.`,
      { param, extra: { oldest_retained: unix } },
    );
  }
}

export class DatabaseUnavailableError extends AppError {
  constructor() {
    super('unavailable', 'service_unavailable', 'The service is temporarily unavailable; retry shortly.', {
      headers: { 'retry-after': '2' },
    });
  }
}

/** Work that ran past its time limit and was stopped, its database statements cancelled. */
export class OperationTimeoutError extends AppError {
  constructor(limitMs?: number) {
    super(
      'unavailable',
      'operation_timeout',
      `The operation ran past its time limit${limitMs ? ` (${limitMs} ms)` : ''} and was stopped; ask for less (a shorter window, fewer rows or fields).`,
    );
  }
}

/** Walks the cause chain (drizzle wraps driver errors): the deadline's own error, or a statement Postgres cancelled (57014). */
export function isOperationTimeout(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof OperationTimeoutError || (e as { code?: unknown }).code === '57014') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

// postgres.js and Postgres codes that mean "the database is not there right now", as opposed to a bug.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** Walks the cause chain (drizzle wraps driver errors) looking for a connectivity failure. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof DatabaseUnavailableError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
