import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectStatus } from '../support/partner-api';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
});

const postQuote = (body: typeof NYC, who: TestPartner = partner) => clientFor(who).POST('/partner/quotes', { body });
const getQuote = (id: string, who: TestPartner = partner) => clientFor(who).GET('/partner/quotes/{id}', { params: { path: { id } } });

describe('POST /partner/quotes', () => {
  it('prices a trip and returns the quote resource', async () => {
    const res = await postQuote(NYC);
    const quote = expectStatus(201, res);
    expect(res.response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(quote).toMatchObject({ object: 'quote', livemode: false, pickup: NYC.pickup, dropoff: NYC.dropoff });
    expect(quote.distance_meters).toBeGreaterThan(1000);
    expect(quote.distance_meters).toBeLessThan(1100);
    expect(quote.fee).toEqual({
      amount: svc.env.QUOTE_BASE_FEE + Math.ceil((svc.env.QUOTE_FEE_PER_KM * quote.distance_meters) / 1000),
      currency: 'USD',
    });
    expect(quote.expires_at - quote.created).toBe(300);
    expect(quote.dropoff_eta - quote.pickup_eta).toBe(quote.duration_seconds);
  });

  it('refuses trips beyond the service radius and too short ones with 422', async () => {
    const far = await postQuote({ pickup: NYC.pickup, dropoff: { lat: 41.5, lng: -73.9 } });
    expect(far.response.status).toBe(422);
    expect(far.error?.error.code).toBe('distance_too_long');
    const near = await postQuote({ pickup: NYC.pickup, dropoff: { lat: 40.7485, lng: -73.9857 } });
    expect(near.response.status).toBe(422);
    expect(near.error?.error.code).toBe('distance_too_short');
  });

  it('GET returns the same quote; an unknown id is 404', async () => {
    const created = expectStatus(201, await postQuote(NYC));
    expect(expectStatus(200, await getQuote(created.id))).toEqual(created);
    const missing = await getQuote('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('resource_missing');
  });

  it('isolates quotes by partner and by environment', async () => {
    const created = expectStatus(201, await postQuote(NYC));
    const other = await createTestPartner(svc);
    const production = await createTestPartner(svc, { environment: 'production' });
    const sameButLive = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId }).catch((e) => e);
    for (const who of [other, production]) {
      expect((await getQuote(created.id, who)).response.status).toBe(404);
    }
    // The same partner's production key (after go-live) cannot see its sandbox quote either.
    expect(sameButLive).toBeInstanceOf(Error);
    const liveQuote = expectStatus(201, await postQuote(NYC, production));
    expect(liveQuote.livemode).toBe(true);
  });
});
