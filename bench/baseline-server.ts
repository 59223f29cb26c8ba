import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { monotonicFactory } from 'ulid';

/**
 * The floor the service is compared with: a plain node:http server that reads and JSON.parses the
 * quote request, prices it, inserts one row of the same shape into the same `quotes` table with a
 * raw postgres.js query (same pool size as the service), and answers 201 with the quote as JSON.
 * POST /partner/orders runs the order's transaction the least way: lock the quote, insert the order,
 * its event and its fan-out job (the pg-boss row, column defaults), mark the quote used.
 * GET /partner/orders/{id} reads one order; GET /partner/event-types answers fixed bytes.
 * No auth, no rate limit, no validation library, no request log, no Request/Response objects.
 *
 * env: DATABASE_URL, PORT, HOST, BENCH_PARTNER_ID, BENCH_ENVIRONMENT (sandbox|production), DB_POOL_MAX.
 */

const partnerId = required('BENCH_PARTNER_ID');
const environment = process.env.BENCH_ENVIRONMENT ?? 'sandbox';
const sql = postgres(required('DATABASE_URL'), { max: Number(process.env.DB_POOL_MAX ?? 10), onnotice: () => {} });
const newId = monotonicFactory();

// The service's defaults (server/config/env.ts).
const BASE_FEE = 500;
const FEE_PER_KM = 120;
const METERS_PER_SECOND = (18 * 1000) / 3600;
const PICKUP_LEAD_SECONDS = 600;
const QUOTE_TTL_SECONDS = 300;

interface Point {
  lat: number;
  lng: number;
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok' });
  if (req.method === 'GET' && req.url === '/partner/event-types') return sendRaw(res, 200, EVENT_TYPES);
  if (req.method === 'GET' && req.url?.startsWith('/partner/orders/')) return void getOrder(req.url.slice('/partner/orders/'.length), res);
  const route = req.method === 'POST' ? { '/partner/quotes': createQuote, '/partner/orders': createOrder }[req.url ?? ''] : undefined;
  if (!route) return send(res, 404, { error: 'not found' });
  readBody(req).then(
    (raw) => route(raw, res),
    () => send(res, 400, { error: 'unreadable body' }),
  );
});

// The bytes the service answers to GET /partner/event-types (passed in by the bench).
const EVENT_TYPES = Buffer.from(process.env.BENCH_EVENT_TYPES_BODY ?? '{}');

async function createOrder(raw: string, res: ServerResponse): Promise<void> {
  let quoteId: string;
  try {
    quoteId = (JSON.parse(raw) as { quote_id: string }).quote_id;
    if (typeof quoteId !== 'string') return send(res, 400, { error: 'quote_id is required' });
  } catch {
    return send(res, 400, { error: 'malformed JSON' });
  }
  try {
    const outcome = await sql.begin(async (tx) => {
      const [quote] = await tx<QuoteRow[]>`
        select * from quotes where id = ${quoteId} and partner_id = ${partnerId} and environment = ${environment} for update`;
      if (!quote) return { status: 404, body: { error: 'no such quote' } };
      const now = new Date(Math.floor(Date.now() / 1000) * 1000);
      if ((quote as QuoteRow & { used_at: Date | null }).used_at) return { status: 409, body: { error: 'quote already used' } };
      if (quote.expires_at <= now) return { status: 422, body: { error: 'quote expired' } };
      const pickup = { lat: quote.pickup_lat, lng: quote.pickup_lng, contact: null, instructions: null };
      const dropoff = { lat: quote.dropoff_lat, lng: quote.dropoff_lng, contact: null, instructions: null };
      const history = [{ status: 'created', at: unix(now) }];
      const [order] = await tx<{ id: string }[]>`
        insert into orders (id, partner_id, environment, status, quote_id, pickup, dropoff, fee_amount, fee_currency,
                            status_history, metadata, created_at, updated_at)
        values (${newId()}, ${partnerId}, ${environment}, 'created', ${quote.id}, ${tx.json(pickup)}, ${tx.json(dropoff)},
                ${quote.fee_amount}, ${quote.fee_currency}, ${tx.json(history)}, ${tx.json({})}, ${now}, ${now})
        returning *`;
      const body = {
        id: order!.id,
        object: 'order',
        livemode: environment === 'production',
        status: 'created',
        quote_id: quote.id,
        external_id: null,
        pickup,
        dropoff,
        fee: { amount: quote.fee_amount, currency: quote.fee_currency },
        courier: null,
        cancellation: null,
        status_history: history,
        metadata: {},
        simulation: null,
        created: unix(now),
        updated: unix(now),
      };
      await tx`update quotes set used_at = ${now} where id = ${quote.id}`;
      const eventId = newId();
      const envelope = { id: eventId, object: 'event', created: unix(now), livemode: false, type: 'order.created', data: { object: body } };
      await tx`
        insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
        values (${eventId}, ${partnerId}, ${environment}, 'order.created', ${order!.id}, ${tx.json(envelope)}, ${new Date()})`;
      await tx`insert into pgboss.job (name, data) values ('webhooks.fanout', ${tx.json({ event_id: eventId })})`;
      return { status: 201, body };
    });
    send(res, outcome.status, outcome.body);
  } catch (error) {
    console.error(error);
    send(res, 500, { error: 'database error' });
  }
}

async function getOrder(id: string, res: ServerResponse): Promise<void> {
  try {
    const [row] = await sql`select * from orders where id = ${id} and partner_id = ${partnerId} and environment = ${environment}`;
    if (!row) return send(res, 404, { error: 'no such order' });
    send(res, 200, {
      id: row.id,
      object: 'order',
      livemode: row.environment === 'production',
      status: row.status,
      quote_id: row.quote_id,
      external_id: row.external_id,
      pickup: row.pickup,
      dropoff: row.dropoff,
      fee: { amount: row.fee_amount, currency: row.fee_currency },
      courier: row.courier,
      cancellation: row.cancellation,
      status_history: row.status_history,
      metadata: row.metadata,
      simulation: row.simulation,
      created: unix(row.created_at as Date),
      updated: unix(row.updated_at as Date),
    });
  } catch (error) {
    console.error(error);
    send(res, 500, { error: 'database error' });
  }
}

async function createQuote(raw: string, res: ServerResponse): Promise<void> {
  let pickup: Point, dropoff: Point;
  try {
    const body = JSON.parse(raw) as { pickup?: Point; dropoff?: Point };
    if (!isPoint(body.pickup) || !isPoint(body.dropoff)) return send(res, 400, { error: 'pickup and dropoff need numeric lat and lng' });
    pickup = body.pickup;
    dropoff = body.dropoff;
  } catch {
    return send(res, 400, { error: 'malformed JSON' });
  }
  const distance = Math.round(haversineMeters(pickup, dropoff));
  const fee = BASE_FEE + Math.ceil((FEE_PER_KM * distance) / 1000);
  const duration = Math.ceil(distance / METERS_PER_SECOND);
  const now = Math.floor(Date.now() / 1000) * 1000;
  const pickupEta = now + PICKUP_LEAD_SECONDS * 1000;
  try {
    const [row] = await sql<QuoteRow[]>`
      insert into quotes (id, partner_id, environment, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng, distance_meters,
                          fee_amount, fee_currency, duration_seconds, pickup_eta, dropoff_eta, expires_at, created_at)
      values (${newId()}, ${partnerId}, ${environment}, ${pickup.lat}, ${pickup.lng}, ${dropoff.lat}, ${dropoff.lng}, ${distance},
              ${fee}, ${'USD'}, ${duration}, ${new Date(pickupEta)}, ${new Date(pickupEta + duration * 1000)},
              ${new Date(now + QUOTE_TTL_SECONDS * 1000)}, ${new Date(now)})
      returning *`;
    const r = row!;
    send(res, 201, {
      id: r.id,
      object: 'quote',
      livemode: r.environment === 'production',
      created: unix(r.created_at),
      pickup: { lat: r.pickup_lat, lng: r.pickup_lng },
      dropoff: { lat: r.dropoff_lat, lng: r.dropoff_lng },
      distance_meters: r.distance_meters,
      fee: { amount: r.fee_amount, currency: r.fee_currency },
      duration_seconds: r.duration_seconds,
      pickup_eta: unix(r.pickup_eta),
      dropoff_eta: unix(r.dropoff_eta),
      expires_at: unix(r.expires_at),
    });
  } catch (error) {
    console.error(error);
    send(res, 500, { error: 'database error' });
  }
}

interface QuoteRow {
  id: string;
  environment: string;
  pickup_lat: number;
  pickup_lng: number;
  dropoff_lat: number;
  dropoff_lng: number;
  distance_meters: number;
  fee_amount: number;
  fee_currency: string;
  duration_seconds: number;
  pickup_eta: Date;
  dropoff_eta: Date;
  expires_at: Date;
  created_at: Date;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendRaw(res, status, JSON.stringify(body));
}

function sendRaw(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(body);
}

function isPoint(p: unknown): p is Point {
  return typeof p === 'object' && p !== null && typeof (p as Point).lat === 'number' && typeof (p as Point).lng === 'number';
}

function haversineMeters(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`baseline-server: ${name} is required`);
    process.exit(2);
  }
  return value;
}

server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

const shutdown = () => {
  server.closeIdleConnections();
  server.close(() => void sql.end({ timeout: 2 }).then(() => process.exit(0)));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
