import { AppError, ValidationError } from '../errors';
import { unstorableTextErrors } from '../validation';
import { webExchange, type Exchange } from './exchange';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads and parses a JSON body. Absent body → undefined. Over 64 KiB → 413 (checked against
 * Content-Length first, then while streaming, so a lying or missing length cannot get past it).
 * A body that is not application/json → 415. Malformed JSON → 400. Slower than `timeoutMs` → 408.
 */
export async function readJsonBody(source: Exchange | Request, timeoutMs: number): Promise<{ value: unknown; raw: string } | undefined> {
  const exchange = source instanceof Request ? webExchange(source) : source;
  const bytes = await exchange.readBody(MAX_BODY_BYTES, timeoutMs);
  let raw: string;
  // fatal: invalid UTF-8 is malformed input, not something to silently replace.
  try {
    raw = utf8.decode(bytes);
  } catch {
    throw new ValidationError([{ param: '', code: 'invalid_json', message: 'The request body is not valid UTF-8 JSON.' }]);
  }
  if (raw.length === 0) return undefined;
  if (!isJsonContentType(exchange.header('content-type'))) {
    throw new AppError(
      'unsupported_media_type',
      'unsupported_media_type',
      'Request bodies must be JSON, sent with Content-Type: application/json.',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ValidationError([{ param: '', code: 'invalid_json', message: 'The request body is not valid JSON.' }]);
  }
  // Only a \u escape can put U+0000 or a lone surrogate in the value (raw is strict UTF-8, and JSON
  // refuses raw control characters), so most bodies skip the walk.
  if (MAY_HOLD_UNSTORABLE_TEXT.test(raw)) {
    const errors = unstorableTextErrors(value);
    if (errors.length > 0) throw new ValidationError(errors);
  }
  return { value, raw };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const MAY_HOLD_UNSTORABLE_TEXT = /\\u(0000|d[89a-f])/i;

export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.startsWith('application/') === true && type.endsWith('+json'));
}
