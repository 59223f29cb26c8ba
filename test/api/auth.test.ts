import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { issueCredential } from '@/server/credentials/issue';
import { revokeCredential } from '@/server/credentials/revoke';
import { AppError } from '@/server/errors';
import { createPartner } from '@/server/partners/create';
import { decideGoLive } from '@/server/partners/go-live';
import { call, type Reply } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { approveGoLive, createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;
let other: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  [partner, other] = await Promise.all([createTestPartner(svc), createTestPartner(svc)]);
});

const postQuote = (headers: Record<string, string>) => call('POST', '/partner/quotes', { baseUrl: svc.url, headers }, NYC);
const getQuote = (id: string, headers: Record<string, string>) => call('GET', `/partner/quotes/${id}`, { baseUrl: svc.url, headers });

function without(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
}

/** The 401 body with its request id blanked, after checking the parts every 401 must have. */
function unauthorisedShape(reply: Reply): string {
  expect(reply.status).toBe(401);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  const requestId = reply.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_/);
  const body = JSON.parse(reply.text);
  expect(body.error.request_id).toBe(requestId);
  expect(body.error.type).toBe('authentication_error');
  // No rate-limit headers: an unauthenticated caller learns nothing about any credential.
  expect(reply.headers.get('ratelimit-limit')).toBeNull();
  return reply.text.replace(JSON.stringify(requestId), '"<request_id>"');
}

describe('authentication', () => {
  it('the credentials work, as the baseline for every case below', async () => {
    expect((await postQuote(partner.headers)).status).toBe(201);
  });

  it('answers 401 with one byte-identical body for every kind of bad credential', async () => {
    const revocable = await createTestPartner(svc, { partnerId: partner.partnerId });
    await revokeCredential({ ctx: cliContext(svc.rt, 'test'), input: { clientId: revocable.clientId } });

    const cases: Record<string, Record<string, string>> = {
      'no X-API-Key': without(partner.headers, 'x-api-key'),
      'no X-Client-ID': without(partner.headers, 'x-client-id'),
      'neither header': { 'content-type': 'application/json' },
      'empty X-API-Key': { ...partner.headers, 'x-api-key': '' },
      'unknown key': { ...partner.headers, 'x-api-key': 'sk_sandbox_' + 'A'.repeat(43) },
      'unknown key and client id': { ...partner.headers, 'x-api-key': 'sk_sandbox_nope', 'x-client-id': 'ci_nope' },
      "another credential's client id": { ...partner.headers, 'x-client-id': other.clientId },
      "another partner's key": { ...partner.headers, 'x-api-key': other.apiKey },
      'the same partner, another credential': { ...partner.headers, 'x-client-id': revocable.clientId },
      'the key in the client id header': { ...partner.headers, 'x-client-id': partner.apiKey, 'x-api-key': partner.clientId },
      'a key with one extra character': { ...partner.headers, 'x-api-key': `${partner.apiKey}x` },
      'an overlong key': { ...partner.headers, 'x-api-key': partner.apiKey + 'x'.repeat(5000) },
      'an overlong client id': { ...partner.headers, 'x-client-id': partner.clientId + 'x'.repeat(5000) },
      'a revoked key': revocable.headers,
    };
    const shapes = new Map<string, string>();
    for (const [name, headers] of Object.entries(cases)) {
      const post = await postQuote(headers);
      const get = await getQuote('01ARZ3NDEKTSV4RRFFQ69G5FAV', headers);
      shapes.set(`POST, ${name}`, unauthorisedShape(post));
      shapes.set(`GET, ${name}`, unauthorisedShape(get));
    }
    const distinct = new Set(shapes.values());
    expect(distinct.size, JSON.stringify(Object.fromEntries(shapes), null, 2)).toBe(1);
    expect(JSON.parse([...distinct][0]!)).toEqual({
      error: { type: 'authentication_error', code: 'invalid_credentials', message: expect.any(String), request_id: '<request_id>' },
    });
  });

  it('a revoked key stops working within 5 s, with the same 401 body', async () => {
    const cred = await createTestPartner(svc, { partnerId: partner.partnerId });
    // Warm this process's credential cache so the revocation has to expire it.
    expect((await postQuote(cred.headers)).status).toBe(201);
    const baseline = unauthorisedShape(await postQuote(without(cred.headers, 'x-api-key')));

    const revokedAt = Date.now();
    await revokeCredential({ ctx: cliContext(svc.rt, 'test'), input: { clientId: cred.clientId } });
    const last = await waitFor('the revoked key to stop working', () => postQuote(cred.headers), {
      until: (r) => r.status !== 201,
      timeoutMs: 6000,
      intervalMs: 100,
    });
    expect(last.status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    expect(unauthorisedShape(last)).toBe(baseline);
    // And it stays revoked.
    expect((await getQuote('01ARZ3NDEKTSV4RRFFQ69G5FAV', cred.headers)).status).toBe(401);
    // The partner's other credentials are untouched.
    expect((await postQuote(partner.headers)).status).toBe(201);
  });
});

describe('environments', () => {
  let sandbox: TestPartner;
  let production: TestPartner;

  beforeAll(async () => {
    const ctx = cliContext(svc.rt, 'test');
    const { id } = await createPartner({ ctx, input: { name: 'Live Partner' } });
    await approveGoLive(ctx, id);
    sandbox = await createTestPartner(svc, { partnerId: id, environment: 'sandbox' });
    production = await createTestPartner(svc, { partnerId: id, environment: 'production' });
  });

  it('keys carry their environment in a prefix', () => {
    expect(sandbox.apiKey).toMatch(/^sk_sandbox_/);
    expect(production.apiKey).toMatch(/^sk_live_/);
  });

  it('a sandbox quote is invisible to the same partner’s production key, and the reverse', async () => {
    const sandboxQuote = JSON.parse((await postQuote(sandbox.headers)).text);
    const liveQuote = JSON.parse((await postQuote(production.headers)).text);
    expect(sandboxQuote.livemode).toBe(false);
    expect(liveQuote.livemode).toBe(true);

    const own = [await getQuote(sandboxQuote.id, sandbox.headers), await getQuote(liveQuote.id, production.headers)];
    expect(own.map((r) => r.status)).toEqual([200, 200]);
    expect(JSON.parse(own[0]!.text).livemode).toBe(false);
    expect(JSON.parse(own[1]!.text).livemode).toBe(true);

    const crossed = [await getQuote(sandboxQuote.id, production.headers), await getQuote(liveQuote.id, sandbox.headers)];
    for (const reply of crossed) {
      expect(reply.status).toBe(404);
      expect(JSON.parse(reply.text).error.code).toBe('resource_missing');
    }
    // Indistinguishable from an id that never existed.
    const missing = await getQuote('01ARZ3NDEKTSV4RRFFQ69G5FAV', production.headers);
    expect(missing.status).toBe(404);
    const blank = (r: Reply, id: string) => r.text.replace(JSON.parse(r.text).error.request_id, '').replace(id, '<id>');
    expect(blank(crossed[0]!, sandboxQuote.id)).toBe(blank(missing, '01ARZ3NDEKTSV4RRFFQ69G5FAV'));
  });

  it("another partner's production key cannot see this partner's quotes either", async () => {
    const liveQuote = JSON.parse((await postQuote(production.headers)).text);
    const otherLive = await createTestPartner(svc, { environment: 'production' });
    expect((await getQuote(liveQuote.id, otherLive.headers)).status).toBe(404);
  });

  it('production credentials cannot be issued before go-live approval', async () => {
    const ctx = cliContext(svc.rt, 'test');
    const { id } = await createPartner({ ctx, input: { name: 'Not Yet Live' } });
    const attempt = () => issueCredential({ ctx, input: { partnerId: id, environment: 'production' } });
    const expectRefused = async () => {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).kind).toBe('conflict');
      expect((error as AppError).code).toBe('go_live_required');
    };

    await expectRefused(); // not requested
    await decideGoLive({ ctx, input: { partnerId: id, decision: 'request' } });
    await expectRefused(); // requested, not yet decided
    await decideGoLive({ ctx, input: { partnerId: id, decision: 'reject' } });
    await expectRefused(); // rejected
    // Sandbox credentials need no review.
    expect((await issueCredential({ ctx, input: { partnerId: id, environment: 'sandbox' } })).api_key).toMatch(/^sk_sandbox_/);

    await approveGoLive(ctx, id);
    const issued = await attempt();
    expect(issued.environment).toBe('production');
    expect(issued.api_key).toMatch(/^sk_live_/);
  });
});
