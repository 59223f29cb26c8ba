import { beforeAll, describe, expect, it } from 'vitest';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
});

const post = (body: unknown, headers = partner.headers) =>
  fetch(`${svc.url}/partner/quotes`, { method: 'POST', headers, body: JSON.stringify(body) });

describe('POST /partner/quotes', () => {
  it('prices a trip and returns the quote resource', async () => {
    const res = await post(NYC);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const quote = await res.json();
    expect(quote).toMatchObject({ object: 'quote', livemode: false, pickup: NYC.pickup, dropoff: NYC.dropoff });
    expect(quote.distance_meters).toBeGreaterThan(1000);
    expect(quote.distance_meters).toBeLessThan(1100);
    expect(quote.fee).toEqual({ amount: svc.env.QUOTE_BASE_FEE + Math.ceil((svc.env.QUOTE_FEE_PER_KM * quote.distance_meters) / 1000), currency: 'USD' });
    expect(quote.expires_at - quote.created).toBe(300);
    expect(quote.dropoff_eta - quote.pickup_eta).toBe(quote.duration_seconds);
  });

  it('refuses trips beyond the service radius and too short ones with 422', async () => {
    const far = await post({ pickup: NYC.pickup, dropoff: { lat: 41.5, lng: -73.9 } });
    expect(far.status).toBe(422);
    expect((await far.json()).error.code).toBe('distance_too_long');
    const near = await post({ pickup: NYC.pickup, dropoff: { lat: 40.7485, lng: -73.9857 } });
    expect(near.status).toBe(422);
    expect((await near.json()).error.code).toBe('distance_too_short');
  });

  it('GET returns the same quote; an unknown id is 404', async () => {
    const created = await (await post(NYC)).json();
    const got = await fetch(`${svc.url}/partner/quotes/${created.id}`, { headers: partner.headers });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(created);
    const missing = await fetch(`${svc.url}/partner/quotes/01ARZ3NDEKTSV4RRFFQ69G5FAV`, { headers: partner.headers });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('resource_missing');
  });

  it('isolates quotes by partner and by environment', async () => {
    const created = await (await post(NYC)).json();
    const other = await createTestPartner(svc);
    const production = await createTestPartner(svc, { environment: 'production' });
    const sameButLive = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId }).catch((e) => e);
    for (const who of [other, production]) {
      const res = await fetch(`${svc.url}/partner/quotes/${created.id}`, { headers: who.headers });
      expect(res.status).toBe(404);
    }
    // The same partner's production key (after go-live) cannot see its sandbox quote either.
    expect(sameButLive).toBeInstanceOf(Error);
    const liveQuote = await (await post(NYC, production.headers)).json();
    expect(liveQuote.livemode).toBe(true);
  });
});
