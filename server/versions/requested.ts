import { z } from 'zod';
import { AppError } from '../errors';
import { isKnownVersion, VERSIONS } from './registry';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A version a caller named (the X-Service-Version header, ?version=): a known one, or a 400 that lists
 * the known versions. Only a value that looks like a date is echoed back.
 */
export function parseVersion(value: string, param: string): string {
  const known = VERSIONS.join(', ');
  if (!DATE.test(value)) {
    throw new AppError('invalid_request', 'api_version_invalid', `${param} must be a version date (YYYY-MM-DD), one of: ${known}.`, {
      param,
      extra: { known_versions: VERSIONS },
    });
  }
  if (!isKnownVersion(value)) {
    throw new AppError(
      'invalid_request',
      'api_version_unknown',
      `Unknown version '${value}' in ${param}: the known versions are ${known}.`,
      {
        param,
        extra: { known_versions: VERSIONS },
      },
    );
  }
  return value;
}

/** A version field of a request body (a subscription's `api_version`). */
export const versionField = z
  .enum(VERSIONS as [string, ...string[]])
  .meta({ description: 'A version of the API (GET /partner/versions)', example: VERSIONS.at(-1) });
