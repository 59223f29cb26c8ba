import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors';

/** Every zod issue becomes one entry of `errors`, with a dotted `param` (pickup.lat, items[0].name). */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  return issues.flatMap((issue): FieldError[] => {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        param: base ? `${base}.${key}` : key,
        code: 'parameter_unknown',
        message: `Received unknown parameter: ${base ? `${base}.${key}` : key}.`,
      }));
    }
    return [{ param: base, code: codeOf(issue), message: messageOf(issue, base) }];
  });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new ValidationError(toFieldErrors(result.error.issues, prefix));
  return result.data;
}

function codeOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'parameter_missing' : 'parameter_invalid_type';
    case 'too_big':
    case 'too_small':
      return 'parameter_out_of_range';
    default:
      return 'parameter_invalid';
  }
}

function messageOf(issue: z.core.$ZodIssue, param: string): string {
  const name = param || 'body';
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return `Missing required parameter: ${name}.`;
    if (issue.expected === 'number' && typeof issue.input === 'number') return `Invalid ${name}: must be a finite number.`;
    return `Invalid type for ${name}: expected ${issue.expected}, received ${describeType(issue.input)}.`;
  }
  return `Invalid ${name}: ${issue.message}.`;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Postgres text cannot hold U+0000, so a NUL anywhere in input would fail at the database as a 500;
 * it is refused up front as a 400 naming the field.
 */
export function rejectNulCharacters(value: unknown, prefix = ''): void {
  const at = findNul(value, prefix);
  if (at !== undefined) {
    throw new ValidationError([{ param: at, code: 'parameter_invalid', message: `Invalid ${at || 'body'}: contains a NUL character.` }]);
  }
}

function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], path ? `${path}.${i}` : String(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const key = path ? `${path}.${k}` : k;
      if (k.includes('\u0000')) return key;
      const found = findNul(v, key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
