import { hash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { idempotencyKeys } from '@/db/schema';
import type { Environment } from '../context';
import type { SecretBox } from '../crypto/secret-box';
import { AppError, ConflictError, ValidationError } from '../errors';

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

interface Scope {
  partnerId: string;
  environment: Environment;
  key: string;
}

// A request that died mid-flight (process killed) must not block its key for 24 h.
const STALE_IN_PROGRESS_SECONDS = 60;

export function validateIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ValidationError([
      {
        param: 'Idempotency-Key',
        code: 'idempotency_key_invalid',
        message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
      },
    ]);
  }
}

export function requestFingerprint(method: string, path: string, rawBody: string): string {
  return hash('sha256', `${method} ${path}\n${rawBody}`, 'hex');
}

/**
 * Claims a key for this request, or returns the stored first response. Same key with another
 * request → 422 idempotency_key_reused; a first request still running → 409.
 */
export async function claimIdempotencyKey(
  db: Database,
  scope: Scope,
  fingerprint: string,
  ttlHours: number,
  box?: SecretBox,
): Promise<Claim> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({
      ...scope,
      requestHash: fingerprint,
      state: 'in_progress',
      expiresAt: sql`now() + make_interval(hours => ${ttlHours})`,
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.partnerId, idempotencyKeys.environment, idempotencyKeys.key],
      // Take over an expired key, or one whose first request died without finishing.
      set: {
        requestHash: fingerprint,
        state: 'in_progress',
        createdAt: sql`now()`,
        expiresAt: sql`now() + make_interval(hours => ${ttlHours})`,
        responseStatus: null,
        responseBody: null,
        responseHeaders: null,
      },
      setWhere: sql`${idempotencyKeys.expiresAt} < now() or (${idempotencyKeys.state} = 'in_progress' and ${idempotencyKeys.createdAt} < now() - make_interval(secs => ${STALE_IN_PROGRESS_SECONDS}))`,
    })
    .returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return { kind: 'claimed' };

  const [existing] = await db.select().from(idempotencyKeys).where(whereScope(scope));
  if (!existing) return claimIdempotencyKey(db, scope, fingerprint, ttlHours, box);
  if (existing.requestHash !== fingerprint) {
    throw new AppError(
      'unprocessable',
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request; use a new key.',
      {
        param: 'Idempotency-Key',
      },
    );
  }
  if (existing.state === 'in_progress' || existing.responseStatus === null) {
    throw new ConflictError(
      'idempotency_request_in_progress',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
    );
  }
  return {
    kind: 'replay',
    response: {
      status: existing.responseStatus,
      body: openBody(existing.responseBody ?? '', box),
      headers: existing.responseHeaders ?? {},
    },
  };
}

/**
 * Stores the first response, sealed: a response can carry a secret shown once (a webhook's signing
 * secret), and no secret rests in plain text. Pass the executor of the change's own transaction, so
 * the change and its key's outcome commit together: a key whose change committed never runs again.
 */
export async function completeIdempotencyKey(db: Executor, scope: Scope, response: StoredResponse, box?: SecretBox): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({
      state: 'completed',
      responseStatus: response.status,
      responseBody: sealBody(response.body, box),
      responseHeaders: response.headers,
    })
    .where(whereScope(scope));
}

// Sealed bodies are SecretBox text (v1.<key id>...), which no JSON body starts with.
const SEALED = 'v1.';

function sealBody(body: string, box: SecretBox | undefined): string {
  if (!box) throw new Error('no secret encryption key in this process: stored responses are sealed');
  return box.seal(body);
}

function openBody(stored: string, box: SecretBox | undefined): string {
  if (!stored.startsWith(SEALED)) return stored; // stored before responses were sealed (kept 24 h at most)
  if (!box) throw new Error('no secret encryption key in this process: stored responses are sealed');
  return box.open(stored);
}

/** A failed (5xx) request leaves no trace: the client may retry with the same key. */
export async function releaseIdempotencyKey(db: Database, scope: Scope): Promise<void> {
  await db.delete(idempotencyKeys).where(and(whereScope(scope), eq(idempotencyKeys.state, 'in_progress')));
}

export async function purgeExpiredIdempotencyKeys(db: Database): Promise<number> {
  const rows = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, sql`now()`))
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}

function whereScope(scope: Scope) {
  return and(
    eq(idempotencyKeys.partnerId, scope.partnerId),
    eq(idempotencyKeys.environment, scope.environment),
    eq(idempotencyKeys.key, scope.key),
  );
}
