import type { z } from 'zod';
import { ValidationError, type FieldError } from './errors';

/** Every zod issue becomes one entry of `errors`, with a dotted `param` (pickup.lat, items.0.name). */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  return issues.flatMap((issue): FieldError[] => {
    const base = issue.path.reduce<string>((path, segment) => appendParam(path, String(segment)), prefix);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const param = appendParam(base, key);
        return { param, code: 'parameter_unknown', message: `Received unknown parameter: ${param}.` };
      });
    }
    return [{ param: base, code: codeOf(issue), message: messageOf(issue, base) }];
  });
}

/**
 * pickup + lat → pickup.lat. A key that a dotted path cannot show (empty, or holding a dot or a
 * bracket) is quoted, so that every field, even one named "", has a non-empty param of its own:
 * metadata["a.b"], [""]. An empty param is kept for the body as a whole.
 */
export function appendParam(path: string, key: string): string {
  if (key === '' || /[.[\]"]/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
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

// Postgres text and jsonb cannot hold U+0000, and UTF-8 cannot encode an unpaired UTF-16 surrogate
// (JSON can spell both: "\u0000", "\ud800"). Such text can never be stored or match a stored value,
// and sent to the database it fails the query: a 500 for what is bad input.
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_REPORTED = 20;

export function isStorableText(text: string): boolean {
  return !text.includes('\0') && !UNPAIRED_SURROGATE.test(text);
}

/** Every string and key of a parsed JSON value that isStorableText refuses, in document order. */
export function unstorableTextErrors(value: unknown, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  // A stack, not recursion: a 64 KiB body can nest 30,000 levels deep.
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length > 0 && errors.length < MAX_REPORTED) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) errors.push(unstorable(path));
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const children: [unknown, string][] = [];
    for (const [key, child] of Object.entries(current)) {
      const childPath = appendParam(path, key);
      if (isStorableText(key)) children.push([child, childPath]);
      else errors.push(unstorable(childPath));
    }
    stack.push(...children.reverse());
  }
  return errors;
}

/** Query parameters as an object for the query schema, or a 400 for text that cannot be stored. */
export function storableQuery(params: URLSearchParams): Record<string, string> {
  const errors = [...params].flatMap(([key, value]) => (isStorableText(key) && isStorableText(value) ? [] : [unstorable(key)]));
  if (errors.length > 0) throw new ValidationError(errors);
  return Object.fromEntries(params);
}

function unstorable(param: string): FieldError {
  return {
    param,
    code: 'parameter_invalid',
    message: `Invalid ${param || 'body'}: text must not contain U+0000 or an unpaired UTF-16 surrogate.`,
  };
}
