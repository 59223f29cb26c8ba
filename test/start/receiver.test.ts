import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { call, newOrder } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// `npm run receiver`, the local receiver a newcomer tries webhooks with: it subscribes itself,
// receives over HTTPS, verifies every signature, and deletes its subscription on Ctrl-C.

let svc: TestService;
let partner: TestPartner;
let child: ChildProcess;
const output: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
  // The run's test CA is the one this service trusts (NODE_EXTRA_CA_CERTS, set by the global setup).
  child = spawn(
    'node_modules/.bin/tsx',
    [
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

  it('deletes its subscription on SIGTERM', async () => {
    expect((await call('GET', '/partner/webhooks', partner)).body.data).toHaveLength(1);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect((await call('GET', '/partner/webhooks', partner)).body.data).toHaveLength(0);
  });
});
