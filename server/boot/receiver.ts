import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPartnerClient, verifyWebhook, WebhookVerificationError, type PartnerClient } from '@partner-delivery/client';
import { ensureLocalCa } from './local-ca';

// `npm run receiver`: a webhook receiver on this machine, for trying webhooks end to end (in the
// spirit of `stripe listen`). It serves HTTPS on localhost with a certificate of a local CA kept
// under DATA_DIR, subscribes itself through the partner API (the demo partner by default), sends a
// webhook.test, and prints every event it receives with the outcome of verifying its signature.
// Ctrl-C deletes the subscription again. It is a partner's program: its calls go through the partner's typed
// client and its check is the client's verifyWebhook (clients/typescript/), the one the tests run on real,
// tampered and malformed deliveries, so the quick start's "signature valid" is that verifier's word.

const USAGE = `npm run receiver -- [--port 4000] [--api http://localhost:3000] [--client-id ci_… --api-key sk_…] [--ca-dir DIR]

Without --client-id/--api-key it acts as the demo sandbox partner of DATA_DIR (default .data). The port defaults
to RECEIVER_PORT, else 4000 (0 picks a free one); the service's address to http://localhost:$PORT.
The service must trust the receiver's CA and allow a loopback URL; the receiver prints the command.`;

interface Options {
  port: number;
  api: string;
  dataDir: string;
  clientId?: string;
  apiKey?: string;
  caDir: string;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      // RECEIVER_PORT: so the quick start's own command runs unchanged where 4000 is taken (its test).
      port: { type: 'string', default: process.env.RECEIVER_PORT ?? '4000' },
      api: { type: 'string', default: `http://localhost:${process.env.PORT ?? 3000}` },
      'client-id': { type: 'string' },
      'api-key': { type: 'string' },
      'ca-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be a port number, not ${values.port}`);
  const dataDir = process.env.DATA_DIR ?? '.data';
  return {
    port,
    api: values.api.replace(/\/+$/, ''),
    dataDir,
    clientId: values['client-id'],
    apiKey: values['api-key'],
    caDir: values['ca-dir'] ?? path.join(dataDir, 'local-ca'),
  };
}

/** --client-id/--api-key, else the demo partner `npm start` seeded (undefined until it has). */
function credentials(o: Options): { clientId: string; apiKey: string } | undefined {
  if (o.clientId && o.apiKey) return { clientId: o.clientId, apiKey: o.apiKey };
  try {
    const demo = JSON.parse(readFileSync(path.join(o.dataDir, 'demo-credentials.json'), 'utf8')) as {
      sandbox: { client_id: string; api_key: string };
    };
    return { clientId: demo.sandbox.client_id, apiKey: demo.sandbox.api_key };
  } catch {
    return undefined;
  }
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** The client's verifyWebhook on one delivery: `valid (t … s ago)`, or `INVALID (<reason>: <why>)`. */
function verify(secret: string, header: string | undefined, raw: Buffer): string {
  if (!secret) return 'INVALID (no subscription yet: nothing to check it with)';
  try {
    const { timestamp } = verifyWebhook(raw, header, secret);
    return `valid (t ${Math.round(Date.now() / 1000 - timestamp)} s ago)`;
  } catch (e) {
    // A genuine signature over a body that is not JSON (never the service's) is refused too, not a crash.
    return e instanceof WebhookVerificationError ? `INVALID (${e.reason}: ${e.message})` : `INVALID (${String(e)})`;
  }
}

type Reply = { status: number; body: Record<string, unknown> } | { error: string };

/** One call through the client; a service that does not answer is `{ error }`, which the waiting loop prints. */
async function attempt(call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Reply> {
  try {
    const { data, error, response } = await call();
    return { status: response.status, body: (data ?? error ?? {}) as Record<string, unknown> };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** The partner's client, in its environment's pin (the version its subscription is made in, as before). */
function clientOf(o: Options, who: { clientId: string; apiKey: string }): PartnerClient {
  return createPartnerClient({ baseUrl: o.api, clientId: who.clientId, apiKey: who.apiKey, version: null });
}

async function main(): Promise<void> {
  const o = options();
  const ca = ensureLocalCa(o.caDir, { name: 'Partner Delivery local receiver CA', days: 825 });
  let secret = '';
  let received = 0;
  const server = createServer({ cert: ca.serverCert, key: ca.serverKey }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received++;
      const header = req.headers['x-service-signature'];
      const signature = verify(secret, Array.isArray(header) ? header.join(',') : header, raw);
      let summary = `${raw.length} bytes`;
      try {
        const event = JSON.parse(raw.toString('utf8')) as {
          id: string;
          type: string;
          data?: { object?: { id?: string; status?: string } };
        };
        summary = `${event.type} ${event.id} (${event.data?.object?.id ?? '?'}: ${event.data?.object?.status ?? '?'})`;
      } catch {
        // printed as a byte count
      }
      console.log(`${new Date().toISOString()}  ${summary}  signature ${signature}`);
      res.writeHead(signature.startsWith('valid') ? 200 : 400, { 'content-type': 'text/plain' }).end(signature);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(o.port, 'localhost', resolve));
  const port = (server.address() as { port: number }).port;
  const url = `https://localhost:${port}/webhooks`;

  const startCommand = `NODE_EXTRA_CA_CERTS=${ca.caCert} WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start`;
  console.log(`Webhook receiver listening at ${url}`);

  // Waits for the service: the newcomer starts it after this, with the command printed here.
  let said = '';
  const say = (why: string) => {
    if (why !== said) console.log(`${why}\n  start (or restart) the service in another terminal with:\n    ${startCommand}\n  waiting...`);
    said = why;
  };
  let who: { clientId: string; apiKey: string } | undefined;
  let created: Reply;
  for (;;) {
    who = credentials(o);
    const api = who && clientOf(o, who);
    created = api
      ? await attempt(() => api.POST('/partner/webhooks', { body: { url, description: 'npm run receiver' } }))
      : { error: 'no credentials' };
    if ('body' in created && created.status === 201) break;
    if (!who)
      say(
        `No credentials yet: ${path.join(o.dataDir, 'demo-credentials.json')} is written by the first npm start (or pass --client-id and --api-key).`,
      );
    else if ('error' in created) say(`The service is not reachable at ${o.api} (${created.error}).`);
    else if ((created.body.error as { code?: string } | undefined)?.code === 'url_blocked_address')
      say(`The service refuses loopback webhook URLs (WEBHOOK_ALLOW_PRIVATE_NETWORKS is off).`);
    else fail(`could not subscribe ${url}: HTTP ${created.status} ${JSON.stringify(created.body)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  const api = clientOf(o, who!);
  const subscription = (created as { body: Record<string, unknown> }).body;
  const id = String(subscription.id);
  secret = String(subscription.secret);
  console.log(`Subscribed: ${id}, secret ${secret}\n(Ctrl-C deletes the subscription)\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(130);
    stopping = true;
    await attempt(() => api.DELETE('/partner/webhooks/{id}', { params: { path: { id } } }));
    server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  await attempt(() => api.POST('/partner/webhooks/{id}/test', { params: { path: { id } } }));
  // Nothing after a few seconds: the attempt failed before reaching us, and the delivery log says why.
  setTimeout(() => {
    if (received > 0) return;
    void api
      .GET('/partner/webhooks/{id}/deliveries', { params: { path: { id } } })
      .then(({ data }) => {
        const failed = data?.data[0]?.attempts[0];
        if (failed?.error_kind)
          console.error(
            `The test event has not arrived: ${failed.error_kind}: ${failed.error_message}\n  Is the service running with: ${startCommand}`,
          );
      })
      .catch(() => {});
  }, 5000).unref();
}

main().catch((e: unknown) => fail(`receiver failed: ${e instanceof Error ? e.message : String(e)}`));
