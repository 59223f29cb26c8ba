import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { AuthenticationError, AuthorizationError } from 'type-graphql';
import { AppError, isDatabaseUnavailable, isOperationTimeout, OperationTimeoutError } from '@/server/errors';

/**
 * The one mapping from what a resolver throws to what the operator sees. Domain errors keep their
 * code (`extensions.code`: resource_missing, parameter_invalid, invalid_go_live_transition...) and
 * their `param`; a role that may not act gets `forbidden`; GraphQL's own errors (a syntax error, an
 * unknown field) keep theirs. Anything else is `internal_error` with no message of its own: never a
 * stack, a SQL statement or its parameters.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const base = { locations: formatted.locations, path: formatted.path };
  if (isOperationTimeout(original)) {
    // Drizzle wraps the deadline's error (or Postgres's 57014 for a cancelled statement) in its own.
    const { code, message } = new OperationTimeoutError();
    return { ...base, message, extensions: { code } };
  }
  if (original instanceof AppError) {
    const { param, errors } = original.details;
    return {
      ...base,
      message: original.message,
      extensions: { code: original.code, ...(param ? { param } : {}), ...(errors && errors.length > 1 ? { errors } : {}) },
    };
  }
  if (original instanceof AuthorizationError) {
    return { ...base, message: 'Your role may not do this.', extensions: { code: 'forbidden' } };
  }
  if (original instanceof AuthenticationError) {
    return { ...base, message: 'Sign in first.', extensions: { code: 'unauthenticated' } };
  }
  if (isDatabaseUnavailable(original)) {
    return { ...base, message: 'The service is temporarily unavailable; retry shortly.', extensions: { code: 'service_unavailable' } };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
    return { ...base, message: formatted.message, extensions: { code } };
  }
  return { ...base, message: 'An internal error occurred; it has been logged.', extensions: { code: 'internal_error' } };
}

/** True for what formatError hides: worth a log line with the cause. */
export function isUnexpected(error: unknown): boolean {
  const original = unwrapResolverError(error);
  if (original instanceof AppError || original instanceof AuthorizationError || original instanceof AuthenticationError) return false;
  if (isOperationTimeout(original)) return false;
  const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
  return code === undefined || code === 'INTERNAL_SERVER_ERROR';
}
