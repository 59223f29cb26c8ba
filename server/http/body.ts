import { AppError, ValidationError } from '../errors';
import { unstorableTextErrors } from '../validation';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads and parses a JSON body. Absent body → undefined. Over 64 KiB → 413 (checked against
 * Content-Length first, then while streaming, so a lying or missing length cannot get past it).
 * A body that is not application/json → 415. Malformed JSON → 400.
 */
export async function readJsonBody(request: Request, timeoutMs: number): Promise<{ value: unknown; raw: string } | undefined> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  const raw = await readLimited(request, timeoutMs);
  if (raw.length === 0) return undefined;
  if (!isJsonContentType(request.headers.get('content-type'))) {
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

const MAY_HOLD_UNSTORABLE_TEXT = /\\u(0000|d[89a-f])/i;

export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.startsWith('application/') === true && type.endsWith('+json'));
}

async function readLimited(request: Request, timeoutMs: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  // A body trickled in slower than this is the client's problem: 408, never a 503 about the database.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected before the read is cancelled: a cancel ends the pending read as if the body were complete.
      reject(
        new AppError('request_timeout', 'request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s.`, {
          headers: { connection: 'close' },
        }),
      );
      reader.cancel().catch(() => {});
    }, timeoutMs);
  });
  try {
    return await readAll();
  } finally {
    clearTimeout(timer);
  }

  async function readAll(): Promise<string> {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
    // fatal: invalid UTF-8 is malformed input, not something to silently replace.
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw new ValidationError([{ param: '', code: 'invalid_json', message: 'The request body is not valid UTF-8 JSON.' }]);
    }
  }
}

function tooLarge(): AppError {
  return new AppError('payload_too_large', 'payload_too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
}
