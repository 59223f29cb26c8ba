import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookFailure } from '@partner-delivery/client';
import { clientFor, newOrder, newSubscription } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { createTestPartner, startTestService, type TestService } from '../support/service';

// The verification snippets (docs/webhook-verification/, shown by docs/guides/webhooks.md), run as partners would run them,
// and the TypeScript client's verifyWebhook, on real deliveries: each must accept what the service sends
// and refuse anything altered. One subscription's two deliveries serve every verifier: the file's cost is
// the service's start, two deliveries and the snippets' processes.

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'pdp-verify-'));
let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** An order.created delivery, signed with `secret` alone. */
let delivery: ReceivedRequest;
let secret: string;
/** A webhook.test delivery after a rotation: signed with `rotatedSecret` and, still, `secret`. */
let rotated: ReceivedRequest;
let rotatedSecret: string;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const partner = await createTestPartner(svc);
  receiver = await startReceiver();
  const api = clientFor(partner);
  const created = await newSubscription(partner, { url: `${receiver.url}/verify`, event_filters: ['order.created'] });
  secret = created.secret;
  const order = await newOrder(partner);
  delivery = (await waitFor('the order.created delivery', () => receiver.received.find((r) => r.rawBody.toString().includes(order.id))))!;
  const rotation = await api.POST('/partner/webhooks/{id}/rotate-secret', { params: { path: { id: created.id } } });
  rotatedSecret = rotation.data!.secret;
  const test = await api.POST('/partner/webhooks/{id}/test', { params: { path: { id: created.id } } });
  rotated = (await waitFor('the webhook.test delivery', () =>
    receiver.received.find((r) => r.headers['x-service-event-id'] === test.data!.id),
  ))!;
});
afterAll(async () => {
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Verifies = (body: Buffer, header: string, secrets: string[], tolerance?: number) => Promise<boolean>;

let files = 0;
/** A snippet run as a command on `body`: true when it says the delivery is genuine. */
function command(program: string, script: string): Verifies {
  return async (body, header, secrets, tolerance) => {
    const file = path.join(dir, `body-${++files}`);
    writeFileSync(file, body);
    const args = [script, file, header, ...secrets, ...(tolerance === undefined ? [] : [`--tolerance=${tolerance}`])];
    try {
      const { stdout } = await run(program, args);
      expect(stdout.trim()).toBe('valid');
      return true;
    } catch (e) {
      const failed = e as { code?: number; stdout?: string };
      expect(failed.code, String(e)).toBe(1);
      expect(failed.stdout?.trim()).toBe('invalid');
      return false;
    }
  };
}

/** The client's verifier, in process: true when it returns, false when it throws its own error (any other fails the test). */
async function clientVerifies(body: Buffer, header: string, secrets: string[], tolerance?: number): Promise<boolean> {
  return failure(() => verifyWebhook(body, header, secrets, { toleranceSeconds: tolerance })) === undefined;
}

function failure(verify: () => unknown): WebhookFailure | undefined {
  try {
    verify();
    return undefined;
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
}

const verifiers: [name: string, verifies: Verifies][] = [
  ['Node', command('node', 'docs/webhook-verification/verify.mjs')],
  ['Python', command('python3', 'docs/webhook-verification/verify.py')],
  ['PHP', command('php', 'docs/webhook-verification/verify.php')],
  ['TypeScript client', clientVerifies],
];

/** Once per file: the first delivery's t more than 2 s in the past, so a tolerance of 1 s refuses it. */
let aged: Promise<void> | undefined;
function deliveryAged(): Promise<void> {
  const t = Number(/t=(\d+)/.exec(delivery.headers['x-service-signature']!)![1]);
  aged ??= settle(Math.max(0, (t + 2.1) * 1000 - Date.now()), 'the signed t must grow older than the tolerance');
  return aged;
}

describe.each(verifiers)('the %s verifier', (_name, verifies) => {
  it('accepts a real delivery and refuses a changed body, another secret and a missing signature', async () => {
    const header = delivery.headers['x-service-signature']!;
    const body = delivery.rawBody;
    expect(await verifies(body, header, [secret])).toBe(true);
    expect(await verifies(Buffer.concat([body, Buffer.from(' ')]), header, [secret])).toBe(false);
    expect(await verifies(Buffer.from(body.toString().replace('"livemode":false', '"livemode":true')), header, [secret])).toBe(false);
    expect(await verifies(body, header, ['whsec_' + Buffer.alloc(32).toString('base64')])).toBe(false);
    expect(await verifies(body, header.replace(/,v1=.*/, ''), [secret])).toBe(false);
  });

  it('refuses the same delivery once its t is older than the tolerance', async () => {
    await deliveryAged();
    expect(await verifies(delivery.rawBody, delivery.headers['x-service-signature']!, [secret], 1)).toBe(false);
  });

  it('answers false, never an error, for malformed and crafted headers', async () => {
    const header = delivery.headers['x-service-signature']!;
    const t = /t=(\d+)/.exec(header)![1]!;
    const v1 = /v1=([0-9a-f]+)/.exec(header)![1]!;
    const crafted = [
      '',
      'garbage',
      '=,=,=',
      `t=,v1=${v1}`,
      // A superscript two: Python's str.isdigit() says yes, int() refuses it.
      `t=\u00b2,v1=${v1}`,
      // Arabic-Indic digits: a number to Python's int(), not the t that was signed.
      `t=\u0661\u0662\u0663,v1=${v1}`,
      `t=${t}e0,v1=${v1}`,
      `t=-${t},v1=${v1}`,
      `t=${t},v1=`,
      `t=${t},v1=${v1.slice(0, -1)}\u00e9`,
      `t=${t},v1=${'\u00e9'.repeat(64)}`,
      `t=${t},v1=${v1}0`,
      `t=${t},v1=${v1.toUpperCase()}`,
      `t=${t}${',x'.repeat(2000)}`,
    ];
    for (const h of crafted) expect(await verifies(delivery.rawBody, h, [secret]), h).toBe(false);
  });

  it('during a rotation, accepts a delivery with the old secret and with the new one', async () => {
    const header = rotated.headers['x-service-signature']!;
    expect(await verifies(rotated.rawBody, header, [secret])).toBe(true);
    expect(await verifies(rotated.rawBody, header, [rotatedSecret])).toBe(true);
  });
});

describe("the TypeScript client's verifyWebhook on real deliveries", () => {
  it('returns the event and which secret signed it, and says why it refuses', async () => {
    const header = delivery.headers['x-service-signature']!;
    const verified = verifyWebhook(delivery.rawBody, header, secret);
    expect(verified.event).toEqual(JSON.parse(delivery.rawBody.toString()));
    expect(verified.event.type).toBe('order.created');
    expect(verifyWebhook(rotated.rawBody, rotated.headers['x-service-signature'], ['whsec_gone', rotatedSecret]).secretIndex).toBe(1);
    expect(failure(() => verifyWebhook(Buffer.concat([delivery.rawBody, Buffer.from(' ')]), header, secret))).toBe('mismatch');
    expect(failure(() => verifyWebhook(delivery.rawBody, undefined, secret))).toBe('no_signature');
    expect(failure(() => verifyWebhook(delivery.rawBody, header.replace(/,v1=.*/, ''), secret))).toBe('malformed_header');
    await deliveryAged();
    expect(failure(() => verifyWebhook(delivery.rawBody, header, secret, { toleranceSeconds: 1 }))).toBe('too_old');
  });
});
