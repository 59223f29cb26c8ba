import { randomUUID } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { quotes } from '@/db/schema';
import { cliContext } from '@/server/cli/operator-context';
import { createPartner } from '@/server/partners/create';
import { call, clientFor, expectStatus, type Reply } from '../support/partner-api';
import { approveGoLive, createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  partner = await createTestPartner(svc);
});

/** `who` sending an Idempotency-Key, or none when `key` is undefined. */
const keyed = (key: string | undefined, who: TestPartner = partner): TestPartner =>
  key === undefined ? who : { ...who, headers: { ...who.headers, 'idempotency-key': key } };

const postQuote = (key: string | undefined, body: unknown = NYC, who?: TestPartner) =>
  call('POST', '/partner/quotes', keyed(key, who), body);
const newKey = () => `key-${randomUUID()}`;
const FAR = { pickup: NYC.pickup, dropoff: { lat: 41.5, lng: -73.9 } };
const OTHER_TRIP = { pickup: NYC.pickup, dropoff: { lat: 40.7614, lng: -73.9776 } };

async function quoteCount(who: TestPartner): Promise<number> {
  const [row] = await svc.rt.db
    .select({ n: count() })
    .from(quotes)
    .where(and(eq(quotes.partnerId, who.partnerId), eq(quotes.environment, who.environment)));
  return row!.n;
}

function errorOf(reply: Reply): { type: string; code: string; param?: string; request_id: string } {
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(reply.text).error;
}

describe('Idempotency-Key on POST', () => {
  it('the same key and body answer the stored first response, byte for byte, and create one quote', async () => {
    const key = newKey();
    const before = await quoteCount(partner);
    const first = await postQuote(key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const replays = [await postQuote(key), await postQuote(key)];
    for (const replay of replays) {
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('content-type')).toMatch(/^application\/json/);
      // A new request id per request, even for a replay.
      expect(replay.headers.get('x-request-id')).toMatch(/^req_/);
      expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    }

    const quote = JSON.parse(first.text);
    const got = await clientFor(partner).GET('/partner/quotes/{id}', { params: { path: { id: quote.id } } });
    expect(expectStatus(200, got)).toEqual(quote);
    expect(await quoteCount(partner)).toBe(before + 1);
  });

  it('the same key with a different body is 422 idempotency_key_reused, and the first response stays stored', async () => {
    const key = newKey();
    const first = await postQuote(key);
    expect(first.status).toBe(201);

    const reused = await postQuote(key, OTHER_TRIP);
    expect(reused.status).toBe(422);
    expect(errorOf(reused)).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(errorOf(reused).request_id).toBe(reused.headers.get('x-request-id'));

    // Another endpoint with the same key is another request too.
    const elsewhere = await call('POST', '/partner/orders', keyed(key), { quote_id: JSON.parse(first.text).id });
    expect(elsewhere.status).toBe(422);
    expect(errorOf(elsewhere).code).toBe('idempotency_key_reused');

    const again = await postQuote(key);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a first response that is an error (422) is stored and replayed too', async () => {
    const key = newKey();
    const first = await postQuote(key, FAR);
    expect(first.status).toBe(422);
    expect(errorOf(first).code).toBe('distance_too_long');
    const replay = await postQuote(key, FAR);
    expect(replay.status).toBe(422);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a 400 binds nothing: the corrected request may reuse the key', async () => {
    const key = newKey();
    const malformed = await call('POST', '/partner/quotes', keyed(key), '{"pickup":');
    expect(malformed.status).toBe(400);
    const invalid = await postQuote(key, { pickup: NYC.pickup });
    expect(invalid.status).toBe(400);
    expect(errorOf(invalid)).toMatchObject({ code: 'parameter_missing', param: 'dropoff' });
    expect(invalid.headers.get('idempotent-replayed')).toBeNull();

    const corrected = await postQuote(key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    expect((await postQuote(key)).text).toBe(corrected.text);
  });

  it('keys are scoped per partner and environment, not per credential', async () => {
    const key = newKey();
    const mine = await postQuote(key);
    expect(mine.status).toBe(201);

    // Another partner uses the same key independently.
    const stranger = await createTestPartner(svc);
    const theirs = await postQuote(key, NYC, stranger);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(theirs.text).id).not.toBe(JSON.parse(mine.text).id);
    // ...and even with a different body, since it is not the same key for them.
    expect((await postQuote(key, OTHER_TRIP, stranger)).status).toBe(422);
    const strangerFresh = newKey();
    expect((await postQuote(strangerFresh, OTHER_TRIP, stranger)).status).toBe(201);
    expect((await postQuote(strangerFresh, OTHER_TRIP)).status).toBe(201);

    // A second credential of the same partner and environment shares the key space.
    const sibling = await createTestPartner(svc, { partnerId: partner.partnerId });
    const siblingReply = await postQuote(key, NYC, sibling);
    expect(siblingReply.text).toBe(mine.text);
    expect(siblingReply.headers.get('idempotent-replayed')).toBe('true');
  });

  it('sandbox and production keys of one partner do not share idempotency keys', async () => {
    const ctx = cliContext(svc.rt, 'test');
    const { id } = await createPartner({ ctx, input: { name: 'Two Environments' } });
    await approveGoLive(ctx, id);
    const sandbox = await createTestPartner(svc, { partnerId: id, environment: 'sandbox' });
    const production = await createTestPartner(svc, { partnerId: id, environment: 'production' });
    const key = newKey();
    const inSandbox = await postQuote(key, NYC, sandbox);
    const inProduction = await postQuote(key, NYC, production);
    expect([inSandbox.status, inProduction.status]).toEqual([201, 201]);
    expect(inProduction.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(inSandbox.text).livemode).toBe(false);
    expect(JSON.parse(inProduction.text).livemode).toBe(true);
  });

  it('concurrent requests with one key create one quote: one 201, the rest 409 or the same replay', async () => {
    for (let round = 0; round < 3; round++) {
      const key = newKey();
      const before = await quoteCount(partner);
      const replies = await Promise.all(Array.from({ length: 10 }, () => postQuote(key)));

      const originals = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      expect(originals, replies.map((r) => `${r.status} ${r.text.slice(0, 120)}`).join('\n')).toHaveLength(1);
      const original = originals[0]!;
      for (const reply of replies) {
        if (reply === original) continue;
        if (reply.status === 409) {
          expect(errorOf(reply)).toMatchObject({ type: 'idempotency_error', code: 'idempotency_request_in_progress' });
        } else {
          expect(reply.status).toBe(201);
          expect(reply.headers.get('idempotent-replayed')).toBe('true');
          expect(reply.text).toBe(original.text);
        }
      }
      expect(await quoteCount(partner)).toBe(before + 1);
      // Once the first has finished, every retry is the replay.
      const later = await postQuote(key);
      expect(later.text).toBe(original.text);
    }
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['1,000 characters', 'k'.repeat(1000)],
    ['empty', ''],
    ['a space inside', 'a b'],
    ['a tab inside', 'a\tb'],
  ])('an invalid key (%s) is 400 and creates nothing', async (_name, key) => {
    const before = await quoteCount(partner);
    const reply = await postQuote(key);
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({ code: 'idempotency_key_invalid', param: 'Idempotency-Key' });
    expect(await quoteCount(partner)).toBe(before);
  });

  it('a key of 255 printable characters is accepted', async () => {
    const key = '~!'.repeat(127) + 'x';
    expect(key).toHaveLength(255);
    expect((await postQuote(key)).status).toBe(201);
    expect((await postQuote(key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('GET ignores Idempotency-Key', async () => {
    const quote = JSON.parse((await postQuote(undefined)).text);
    const res = await call('GET', `/partner/quotes/${quote.id}`, keyed('k'.repeat(300)));
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});
