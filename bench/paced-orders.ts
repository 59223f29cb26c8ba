import { Pool } from 'undici';
import { QUOTE_BODY } from './api';

// Open loop: pairs start on a timetable, whether or not the service kept up, so a slower service
// shows as longer answers and a backlog instead of a lower rate hiding it (autocannon's closed loop).
// Past this many pairs in flight the timetable's pairs are dropped and counted: a stalled service
// must not get a thundering catch-up when it wakes.
const MAX_IN_FLIGHT = 200;

export interface PacedOrders {
  /** Pairs the timetable asked for, and those not started because MAX_IN_FLIGHT were in flight. */
  due: number;
  dropped: number;
  /** Orders answered 201. */
  created: number;
  /** Answers other than 201, by status, and socket errors. */
  statuses: Record<string, number>;
  errors: number;
}

/**
 * `POST /partner/quotes` then `POST /partner/orders` for it, `rate` pairs a second until `untilMs`,
 * as the orders scenario's pairs (bench/api.ts quoteThenOrder) but on a timetable. Each created
 * order is reported with the time its 201 arrived (its commit, as a partner sees it) and how long the
 * pair took.
 */
export async function paceOrders(
  url: string,
  headers: Record<string, string>,
  rate: number,
  untilMs: number,
  onCreated: (orderId: string, answeredAt: number, pairMs: number) => void,
): Promise<PacedOrders> {
  const pool = new Pool(url, { connections: 32, pipelining: 1, keepAliveTimeout: 60_000 });
  const result: PacedOrders = { due: 0, dropped: 0, created: 0, statuses: {}, errors: 0 };
  const other = (status: number) => (result.statuses[status] = (result.statuses[status] ?? 0) + 1);
  let inFlight = 0;
  const post = async (path: string, body: string) => {
    const res = await pool.request({ path, method: 'POST', headers, body });
    return { status: res.statusCode, body: await res.body.text() };
  };
  const pair = async () => {
    const startedAt = performance.now();
    try {
      const quote = await post('/partner/quotes', QUOTE_BODY);
      if (quote.status !== 201) return other(quote.status);
      const quoteId = (JSON.parse(quote.body) as { id: string }).id;
      const order = await post('/partner/orders', JSON.stringify({ quote_id: quoteId }));
      const answeredAt = Date.now();
      if (order.status !== 201) return other(order.status);
      result.created++;
      onCreated((JSON.parse(order.body) as { id: string }).id, answeredAt, performance.now() - startedAt);
    } catch {
      result.errors++;
    }
  };
  const startedAt = Date.now();
  let started = 0;
  while (Date.now() < untilMs) {
    result.due = Math.floor(((Date.now() - startedAt) / 1000) * rate);
    while (started < result.due) {
      started++;
      if (inFlight >= MAX_IN_FLIGHT) {
        result.dropped++;
        continue;
      }
      inFlight++;
      void pair().finally(() => inFlight--);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
  await pool.close();
  return result;
}
