import { sql } from 'drizzle-orm';
import type { paths } from '@partner-delivery/client';
import { clientFor, expectStatus } from './partner-api';
import type { TestPartner, TestService } from './service';

/**
 * `count` past order.created events of the partner's, written as the outbox writes them (an order each would take minutes):
 * ids are their creation time's (a minute ago, in its week's partition), then the prefix and a counter.
 */
export async function pastEvents(svc: TestService, who: TestPartner, count: number, prefix: string): Promise<void> {
  await svc.rt.db.execute(sql`
    insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
    select e.id, ${who.partnerId}::text, 'sandbox', 'order.created', 'order_' || g,
      jsonb_build_object('id', e.id, 'object', 'event', 'created', extract(epoch from now())::int, 'livemode', false, 'type', 'order.created',
        'data', jsonb_build_object('object', jsonb_build_object('id', 'order_' || g, 'status', 'created'))),
      now() - interval '1 minute'
    from generate_series(1, ${count}::int) g,
      lateral (select left(pdp_id_floor(now() - interval '1 minute'), 10) || ${prefix}::text || lpad(g::text, 12, '0') as id) e`);
}

export const replayOf = async (who: TestPartner, sub: string, id: string) =>
  expectStatus(
    200,
    await clientFor(who).GET('/partner/webhooks/{id}/replays/{replay_id}', { params: { path: { id: sub, replay_id: id } } }),
  );

export type ReplayBody = paths['/partner/webhooks/{id}/replay']['post']['requestBody']['content']['application/json'];
export const replay = (who: TestPartner, sub: string, body: ReplayBody) =>
  clientFor(who).POST('/partner/webhooks/{id}/replay', { params: { path: { id: sub } }, body });

/** A replay started (202 expected), narrowed from the dry run's type it shares the answer's union with. */
export async function startReplay(who: TestPartner, sub: string, body: ReplayBody) {
  const answer = expectStatus(202, await replay(who, sub, body));
  if (!('id' in answer)) throw new Error(`a dry run answered: ${JSON.stringify(answer)}`);
  return answer;
}
