import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '@/server/errors';
import { errorResponse } from '@/server/http/error-response';
import { createLogger } from '@/server/logger';

// Which failures count as "the database is not there" (503) rather than a bug (500).

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
const wrapped = (cause: Error) => new DrizzleQueryError('select 1', [], cause);

describe('isDatabaseUnavailable', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'ENETUNREACH',
    'ENOTFOUND', // the network, as postgres.js reports it
    'CONNECT_TIMEOUT',
    'CONNECTION_CLOSED',
    'CONNECTION_ENDED',
    'CONNECTION_DESTROYED', // postgres.js's own
    '57P01',
    '57P03',
    '53300',
    '08006', // Postgres: shutting down, starting up, too many connections, connection failure
  ])('%s, bare or wrapped by drizzle, is unavailable', (code) => {
    expect(isDatabaseUnavailable(withCode(code))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(withCode(code)))).toBe(true);
  });

  it.each(['23505', '22P02', '42P01', '40001'])('%s (a query or data error) is not', (code) => {
    expect(isDatabaseUnavailable(wrapped(withCode(code)))).toBe(false);
  });

  it('the request deadline counts; a plain error does not', () => {
    expect(isDatabaseUnavailable(new DatabaseUnavailableError())).toBe(true);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('maps to a 503 envelope with Retry-After', async () => {
    const res = errorResponse(wrapped(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')), 'req_x', createLogger('silent'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({
      error: { type: 'api_error', code: 'service_unavailable', message: expect.any(String), request_id: 'req_x' },
    });
  });
});
