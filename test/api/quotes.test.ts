import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/partner-api';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
});

const postQuote = (body: unknown, who: TestPartner = partner) => call('POST', '/partner/quotes', who, body);

describe('POST /partner/quotes', () => {
  it('prices a trip and returns the quote resource', async () => {
    const res = await postQuote(NYC);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const quote = res.body;
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
    expect(far.status).toBe(422);
    expect(far.body.error.code).toBe('distance_too_long');
    const near = await postQuote({ pickup: NYC.pickup, dropoff: { lat: 40.7485, lng: -73.9857 } });
    expect(near.status).toBe(422);
    expect(near.body.error.code).toBe('distance_too_short');
  });

  it('GET returns the same quote; an unknown id is 404', async () => {
    const created = (await postQuote(NYC)).body;
    const got = await call('GET', `/partner/quotes/${created.id}`, partner);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);
    const missing = await call('GET', '/partner/quotes/01ARZ3NDEKTSV4RRFFQ69G5FAV', partner);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_missing');
  });

  it('isolates quotes by partner and by environment', async () => {
    const created = (await postQuote(NYC)).body;
    const other = await createTestPartner(svc);
    const production = await createTestPartner(svc, { environment: 'production' });
    const sameButLive = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId }).catch((e) => e);
    for (const who of [other, production]) {
      const res = await call('GET', `/partner/quotes/${created.id}`, who);
      expect(res.status).toBe(404);
    }
    // The same partner's production key (after go-live) cannot see its sandbox quote either.
    expect(sameButLive).toBeInstanceOf(Error);
    const liveQuote = (await postQuote(NYC, production)).body;
    expect(liveQuote.livemode).toBe(true);
  });
});
