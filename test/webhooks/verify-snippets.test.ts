import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newOrder } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The verification samples (docs/webhook-verification/, shown by docs/guides/webhooks.md), run as partners would run them,
// on real deliveries: each must accept what the service sends and refuse anything altered.

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'pdp-verify-'));
let svc: TestService;
let partner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

const snippets = [
  ['Node', 'node', 'docs/webhook-verification/verify.mjs'],
  ['Python', 'python3', 'docs/webhook-verification/verify.py'],
] as const;

let files = 0;
/** Runs a snippet as a command on `body`; true when it says the delivery is genuine. */
async function verifies(
  program: string,
  script: string,
  body: Buffer,
  header: string,
  secrets: string[],
  tolerance?: number,
): Promise<boolean> {
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
}

async function subscribeAndReceive(): Promise<{ id: string; secret: string; delivery: ReceivedRequest }> {
  const created = await call('POST', '/partner/webhooks', partner, { url: `${receiver.url}/${files}`, event_filters: ['order.created'] });
  expect(created.status).toBe(201);
  const order = await newOrder(partner);
  const delivery = await waitFor('the order.created delivery', () =>
    receiver.received.find((r) => r.rawBody.toString().includes(order.id) && r.path.endsWith(`/${files}`)),
  );
  expect(delivery).toBeTruthy();
  return { id: created.body.id, secret: created.body.secret, delivery: delivery! };
}

describe.each(snippets)('the %s snippet', (_name, program, script) => {
  it('accepts a real delivery and refuses a changed body, another secret, a stale t and a missing signature', async () => {
    const { secret, delivery } = await subscribeAndReceive();
    const header = delivery.headers['x-service-signature']!;
    const body = delivery.rawBody;
    expect(await verifies(program, script, body, header, [secret])).toBe(true);
    expect(await verifies(program, script, Buffer.concat([body, Buffer.from(' ')]), header, [secret])).toBe(false);
    expect(
      await verifies(program, script, Buffer.from(body.toString().replace('"livemode":false', '"livemode":true')), header, [secret]),
    ).toBe(false);
    expect(await verifies(program, script, body, header, ['whsec_' + Buffer.alloc(32).toString('base64')])).toBe(false);
    expect(await verifies(program, script, body, header.replace(/,v1=.*/, ''), [secret])).toBe(false);
    // t is the attempt time: with no tolerance left, a delivery a couple of seconds old is refused.
    await settle(2100, 'the clock must move on: the same signed delivery, older than the tolerance, is refused');
    expect(await verifies(program, script, body, header, [secret], 1)).toBe(false);
  });

  it('answers false, never an error, for malformed and crafted headers', async () => {
    const { secret, delivery } = await subscribeAndReceive();
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
    for (const h of crafted) expect(await verifies(program, script, delivery.rawBody, h, [secret]), h).toBe(false);
  });

  it('during a rotation, accepts a delivery with the old secret and with the new one', async () => {
    const { id, secret: old } = await subscribeAndReceive();
    const rotated = await call('POST', `/partner/webhooks/${id}/rotate-secret`, partner);
    const test = await call('POST', `/partner/webhooks/${id}/test`, partner);
    const delivery = await waitFor('the webhook.test delivery', () =>
      receiver.received.find((r) => r.headers['x-service-event-id'] === test.body.id),
    );
    const header = delivery!.headers['x-service-signature']!;
    expect(await verifies(program, script, delivery!.rawBody, header, [old])).toBe(true);
    expect(await verifies(program, script, delivery!.rawBody, header, [rotated.body.secret])).toBe(true);
  });
});
