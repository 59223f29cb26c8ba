import { z } from 'zod';
import { normaliseCidr } from '../auth/cidr';
import { UsageError } from './usage-error';

// Flag checks that need no database, so a bad command line is refused before anything is written.
// The verbs check again (their zod schemas); these give the message a shell user needs: the flag's name.

function invalid(flag: string, message: string): UsageError {
  return new UsageError('parameter_invalid', `Invalid --${flag}: ${message}`, flag);
}

/** Trimmed, non-empty, at most `max` characters. */
export function text(flag: string, value: string, max = 200): string {
  const trimmed = value.trim();
  if (!trimmed) throw invalid(flag, 'must not be empty.');
  if (trimmed.length > max) throw invalid(flag, `at most ${max} characters.`);
  return trimmed;
}

/** An id as printed by an earlier command; whether it exists is the verb's (not-found) answer. */
export function id(flag: string, value: string): string {
  const trimmed = value.trim();
  if (!/^[\w-]{1,100}$/.test(trimmed)) throw invalid(flag, `'${value}' is not an id.`);
  return trimmed;
}

export function oneOf<const T extends string>(flag: string, value: string, options: readonly T[]): T {
  if (!(options as readonly string[]).includes(value)) throw invalid(flag, `'${value}' is not one of ${options.join(', ')}.`);
  return value as T;
}

export function cidr(flag: string, value: string): string {
  const normalised = normaliseCidr(value);
  if (!normalised) throw invalid(flag, `'${value}' is not an IPv4 or IPv6 address or CIDR.`);
  return normalised;
}

/** A whole number in [min, max]; decimal digits only ("1e3", "0x10" and " 5" are refused). */
export function integer(flag: string, value: string, min: number, max: number): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(flag, `'${value}' is not a whole number from ${min} to ${max}.`);
  return n;
}

export function email(flag: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length > 254 || !z.email().safeParse(trimmed).success) throw invalid(flag, `'${value}' is not an e-mail address.`);
  return trimmed.toLowerCase();
}

/** `source` names where the value came from in the message, when not the flag itself (stdin). */
export function password(flag: string, value: string, source = `--${flag}`): string {
  const refuse = (message: string) => new UsageError('parameter_invalid', `Invalid ${source}: ${message}`, flag);
  if (value.length < 12) throw refuse('at least 12 characters.');
  if (value.length > 200) throw refuse('at most 200 characters.');
  return value;
}
