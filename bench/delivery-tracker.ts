import type postgres from 'postgres';
import type { BenchReceiver } from './receiver';

// For a run of hours the receiver's receipts cannot all be kept (30 minutes at half rate is millions):
// the tracker takes them off the receiver as they come and keeps one bit per subscription per event,
// and the receipt time of the event's first delivery only until its commit time is known.

export interface DeliveryTracker {
  /** Order id → when its 201 arrived: set by the order generator, read when the order's event is first received. */
  answered: Map<string, number>;
  /** Distinct (event, subscription) pairs received, and receipts of a pair already received. */
  distinct: number;
  duplicates: number;
  /** Receipts on a path that is none of the subscriptions'. */
  strays: number;
  /** Takes the receiver's new receipts in; then looks up the events first seen (their order, hence their commit time). */
  poll(): Promise<void>;
  /** Every order event of the partner, each at every subscription: what never arrived. */
  verify(partnerId: string): Promise<{ events: number; expected: number; missing: number }>;
  stop(): void;
}

/**
 * `onDelivery(at)` for each distinct delivery as it is taken in; `onLatency(at, ms)` once its order's
 * commit (the 201's arrival) is known: receipts of orders the generator did not make (the calibration's,
 * made by autocannon) have none.
 */
export function trackDeliveries(
  sql: postgres.Sql,
  receiver: BenchReceiver,
  paths: string[],
  onDelivery: (at: number) => void,
  onLatency: (at: number, ms: number) => void,
): DeliveryTracker {
  const bitOf = new Map(paths.map((p, i) => [p, 1 << i]));
  const received = new Map<string, number>(); // event id → a bit per subscription
  const committedAt = new Map<string, number>(); // event id → its order's 201 (NaN: not one of ours)
  let waiting: { eventId: string; at: number }[] = [];
  let lookingUp: Promise<void> | undefined;

  const takeIn = () => {
    const receipts = receiver.receipts.splice(0);
    for (const r of receipts) {
      const space = r.key.indexOf(' ');
      const bit = bitOf.get(r.key.slice(0, space));
      const eventId = r.key.slice(space + 1);
      if (bit === undefined) {
        tracker.strays++;
        continue;
      }
      const mask = received.get(eventId) ?? 0;
      if (mask & bit) {
        tracker.duplicates++;
        continue;
      }
      received.set(eventId, mask | bit);
      tracker.distinct++;
      onDelivery(r.at);
      const commit = committedAt.get(eventId);
      if (commit === undefined) waiting.push({ eventId, at: r.at });
      else if (!Number.isNaN(commit)) onLatency(r.at, r.at - commit);
    }
  };

  // Receipts a second old or more: by then the generator has had its order's 201 (the receipt may
  // come first: both leave the service a few ms apart, and this event loop serves both).
  const lookUp = async () => {
    const settled = Date.now() - 1000;
    const unknown = [...new Set(waiting.filter((w) => w.at < settled).map((w) => w.eventId))].filter((id) => !committedAt.has(id));
    for (let i = 0; i < unknown.length; i += 1000) {
      const ids = unknown.slice(i, i + 1000);
      const rows = await sql<{ id: string; object_id: string }[]>`
        select id, object_id from events where id = any(${sql.array(ids)}) and type like 'order.%'`;
      const found = new Set<string>();
      for (const row of rows) {
        found.add(row.id);
        committedAt.set(row.id, tracker.answered.get(row.object_id) ?? NaN);
        tracker.answered.delete(row.object_id);
      }
      for (const id of ids) if (!found.has(id)) committedAt.set(id, NaN);
    }
    const still: typeof waiting = [];
    for (const w of waiting) {
      const commit = committedAt.get(w.eventId);
      if (commit === undefined) still.push(w);
      else if (!Number.isNaN(commit)) onLatency(w.at, w.at - commit);
    }
    waiting = still;
  };

  const timer = setInterval(takeIn, 200);
  const tracker: DeliveryTracker = {
    answered: new Map(),
    distinct: 0,
    duplicates: 0,
    strays: 0,
    async poll() {
      takeIn();
      // One look-up at a time; a second caller waits for it and then runs its own.
      while (lookingUp) await lookingUp;
      lookingUp = lookUp().finally(() => (lookingUp = undefined));
      await lookingUp;
    },
    async verify(partnerId) {
      await tracker.poll();
      let events = 0;
      let missing = 0;
      const all = (1 << paths.length) - 1;
      const cursor = sql<{ id: string }[]>`select id from events where partner_id = ${partnerId} and type like 'order.%'`.cursor(5000);
      for await (const rows of cursor) {
        for (const { id } of rows) {
          events++;
          const mask = received.get(id) ?? 0;
          if (mask !== all) for (let m = all & ~mask; m; m &= m - 1) missing++;
        }
      }
      return { events, expected: events * paths.length, missing };
    },
    stop: () => clearInterval(timer),
  };
  return tracker;
}
