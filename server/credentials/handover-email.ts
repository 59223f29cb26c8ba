import { z } from 'zod';
import { ValidationError } from '../errors';

const address = z.email().max(254);

/** The address a hand-over link goes to, checked before anything is issued. */
export function emailOrThrow(value: string, param = 'email'): string {
  const trimmed = value.trim();
  if (!address.safeParse(trimmed).success)
    throw new ValidationError([{ param, code: 'parameter_invalid', message: `'${value}' is not an e-mail address.` }]);
  return trimmed;
}
