import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { API_VERSION } from '@partner-delivery/client';
import { deliveryHeaders } from '@/server/delivery/signing';
import { clientFor, expectStatus, newOrder } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { TSX_IMPORT } from '../support/processes';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// `npm run receiver`, the local receiver a newcomer tries webhooks with: it subscribes itself,
// receives over HTTPS, verifies every signature (with the typed client's verifyWebhook), and deletes its
// subscription on Ctrl-C.

let svc: TestService;
let partner: TestPartner;
let child: ChildProcess;
const output: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
  // The run's test CA is the one this service trusts (NODE_EXTRA_CA_CERTS, set by the global setup).
  child = spawn(
    process.execPath,
    [
      ...TSX_IMPORT,
      'server/boot/receiver.ts',
      '--port',
      '0',
      '--api',
      svc.url!,
      '--client-id',
      partner.clientId,
      '--api-key',
      partner.apiKey,
      '--ca-dir',
      inject('testCaDir'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')));
});

afterAll(() => {
  child.kill('SIGKILL');
});

const line = (pattern: RegExp) =>
  waitFor(`a line matching ${pattern}`, () => output.find((l) => pattern.test(l)), { timeoutMs: 20_000, context: () => output.join('\n') });

describe('npm run receiver', () => {
  it('subscribes, receives the webhook.test and an order event, and finds both signatures valid', async () => {
    expect(await line(/webhook\.test .* signature valid/), output.join('\n')).toBeTruthy();
    const order = await newOrder(partner);
    expect(await line(new RegExp(`order\\.created \\w+ \\(${order.id}: created\\)  signature valid`)), output.join('\n')).toBeTruthy();
  });

  it("refuses with 400 and prints INVALID what the client's verifier refuses: a changed body, no signature, a malformed one", async () => {
    const [, url] = (await line(/listening at (\S+)/))!.match(/listening at (\S+)/)!;
    const [, secret] = (await line(/secret (whsec_\S+)/))!.match(/secret (whsec_\S+)/)!;
    const body = JSON.stringify({
      id: 'evt_receiver',
      object: 'event',
      type: 'webhook.test',
      data: { object: { id: 'wh_1', status: 'enabled' } },
    });
    const headers = deliveryHeaders({
      secrets: [secret!],
      eventId: 'evt_receiver',
      eventType: 'webhook.test',
      apiVersion: API_VERSION,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      userAgent: 'test',
    });
    const send = async (h: Record<string, string>, b: string) => {
      const res = await fetch(url!, { method: 'POST', headers: h, body: b });
      return [res.status, await res.text()] as const;
    };
    expect(await send(headers, body)).toEqual([200, expect.stringMatching(/^valid \(t -?\d+ s ago\)$/)]);
    expect(await send(headers, body.replace('wh_1', 'wh_2'))).toEqual([400, expect.stringMatching(/^INVALID \(mismatch: /)]);
    const { 'x-service-signature': _, ...unsigned } = headers;
    expect(await send(unsigned, body)).toEqual([400, expect.stringMatching(/^INVALID \(no_signature: /)]);
    expect(await send({ ...headers, 'x-service-signature': headers['x-service-signature']!.replace(/^t=\d+/, 't=1e9') }, body)).toEqual([
      400,
      expect.stringMatching(/^INVALID \(malformed_header: /),
    ]);
    expect(await line(/\(wh_2: enabled\) {2}signature INVALID \(mismatch: /)).toBeTruthy();
  });

  it('deletes its subscription on SIGTERM', async () => {
    const subscriptions = async () => expectStatus(200, await clientFor(partner).GET('/partner/webhooks')).data;
    expect(await subscriptions()).toHaveLength(1);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await subscriptions()).toHaveLength(0);
  });
});
