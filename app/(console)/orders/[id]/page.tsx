'use client';

import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { nextHappyStep, TRANSITIONS, type OrderStatus } from '@/server/orders/state-machine';
import { AttemptTable } from '../../../_console/deliveries/attempts';
import { ON_THE_WAY_MS, refreshDelay, RETRY_WAIT_MAX_MS } from '../../../_console/deliveries/live';
import { Outcome } from '../../../_console/deliveries/outcome';
import { graphql, type ResultOf } from '../../../_console/graphql';
import { IdLink, PartnerCell, TimeCell, UrlText } from '../../../_console/ui/cells';
import { apiErrors, ErrorList, errorFor } from '../../../_console/ui/errors';
import { Field } from '../../../_console/ui/field';
import { formatTime } from '../../../_console/ui/format';
import { usePoll } from '../../../_console/ui/use-poll';
import { useMay } from '../../../_console/viewer';

// The order's facts and history (at most 100 entries), read once and after a move, and at each step while a
// sandbox scenario moves it (its step jobs move it every 1-300 s).
const OrderTimeline = graphql(`
  query OrderTimeline($id: ID!) {
    order(id: $id) {
      id
      externalId
      partnerId
      partnerName
      environment
      status
      feeAmount
      feeCurrency
      createdAt
      updatedAt
      statusHistory {
        status
        at
      }
      scenarioStepSeconds
    }
  }
`);

/** Events shown at a time: their deliveries and attempts come with them, and the page re-reads them while one is pending. */
const EVENTS_PER_PAGE = 10;
/** A delivery's latest attempts shown here; a partner's redeliveries add attempts without end, and its own page has them all. */
const ATTEMPTS_PER_DELIVERY = 5;

// One page of its events with their deliveries, no envelopes: an order of 3,001 events read whole took 12-14 s
// and answered 5.4 MB, every 2 s while a delivery was pending.
const OrderEvents = graphql(`
  query OrderEvents($id: ID!, $first: Int!, $after: String, $attempts: Int!) {
    order(id: $id) {
      id
      events(first: $first, after: $after) {
        nodes {
          id
          type
          createdAt
          deliveries {
            id
            subscriptionId
            url
            outcome
            attemptCount
            nextAttemptAt
            attempts(latest: $attempts) {
              id
              number
              trigger
              requestedBy
              startedAt
              durationMs
              responseStatus
              errorKind
              resolvedAddress
            }
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

const AdvanceOrder = graphql(`
  mutation AdvanceOrder($orderId: ID!, $to: OrderStatus!, $reason: String) {
    advanceOrder(orderId: $orderId, to: $to, reason: $reason) {
      id
      status
    }
  }
`);

type Order = NonNullable<ResultOf<typeof OrderTimeline>['order']>;

export default function OrderTimelinePage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error, fetching }, refetch] = useQuery({ query: OrderTimeline, variables: { id } });
  const order = data?.order;
  const step = order?.scenarioStepSeconds;
  usePoll(refetch, step ? Math.min(Math.max(step * 1000, ON_THE_WAY_MS), RETRY_WAIT_MAX_MS) : null);
  if (fetching && !data) return <p aria-busy="true">Loading…</p>;
  if (!order) {
    return (
      <>
        <h1>Order</h1>
        <ErrorList errors={apiErrors(error)} />
        {!error && <p>There is no order {id}.</p>}
      </>
    );
  }
  return (
    <>
      <p>
        <Link href="/orders">← Orders</Link>
      </p>
      <h1>
        Order <code>{order.id}</code>
      </h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="order-status">{order.status}</dd>
        <dt>External id</dt>
        <dd>{order.externalId ?? '—'}</dd>
        <dt>Partner</dt>
        <dd>
          <PartnerCell id={order.partnerId} name={order.partnerName} environment={order.environment} />
        </dd>
        <dt>Fee</dt>
        <dd>
          {order.feeAmount} {order.feeCurrency} (smallest unit)
        </dd>
        <dt>Deliveries</dt>
        <dd>
          <Link href={`/deliveries?orderId=${order.id}`}>in the log</Link>
        </dd>
      </dl>
      <Advance order={order} onMoved={() => refetch({ requestPolicy: 'network-only' })} />
      <h2 id="history">Status history</h2>
      <ol aria-labelledby="history" className="timeline">
        {order.statusHistory.map((s, i) => (
          <li key={`${s.status}-${i}`}>
            <TimeCell at={s.at} /> {s.status}
          </li>
        ))}
      </ol>
      {/* Keyed by the order's last change: a move shows the newest page again, with the move's event. */}
      <EventPages key={order.updatedAt} orderId={order.id} />
    </>
  );
}

/**
 * The order's events a page at a time, newest first; while a delivery shown is pending, that page alone is
 * re-read: every 2 s while one is on its way, when the first retry is due while they wait for retries (refreshDelay).
 */
function EventPages({ orderId }: { orderId: string }) {
  // The cursors of the pages before this one: "Newer events" goes back one, "Older events" adds this page's end.
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1) ?? null;
  const [{ data, error, fetching }, refetch] = useQuery({
    query: OrderEvents,
    variables: { id: orderId, first: EVENTS_PER_PAGE, after, attempts: ATTEMPTS_PER_DELIVERY },
  });
  const page = data?.order?.events;
  usePoll(refetch, refreshDelay(page?.nodes.flatMap((e) => e.deliveries) ?? [], Date.now()));
  const first = cursors.length * EVENTS_PER_PAGE + 1;
  return (
    <>
      <h2 id="events">Events and their deliveries</h2>
      <ErrorList errors={apiErrors(error)} />
      {!page && fetching && <p aria-busy="true">Loading…</p>}
      {page && page.nodes.length === 0 && <p className="muted">No events.</p>}
      {page && page.nodes.length > 0 && (
        <p className="muted" data-testid="event-range">
          Newest first: events {first} to {first + page.nodes.length - 1}
        </p>
      )}
      {page?.nodes.map((e) => (
        <section key={e.id} aria-labelledby={`event-${e.id}`} className="panel">
          <h3 id={`event-${e.id}`}>
            {e.type} <span className="muted">{formatTime(e.createdAt)}</span>
          </h3>
          <p>
            Event <IdLink id={e.id} href={`/events?id=${e.id}`} />
          </p>
          {e.deliveries.length === 0 && <p className="muted">No subscription took it.</p>}
          {e.deliveries.map((d) => (
            <div key={d.id} className="delivery">
              <p>
                <IdLink
                  id={d.id}
                  href={`/deliveries/${d.id}`}
                  prefix="Delivery"
                  label={`Delivery ${d.id} of ${e.type} to subscription ${d.subscriptionId}`}
                />{' '}
                to <UrlText url={d.url} />: <Outcome value={d.outcome} />
              </p>
              <AttemptTable caption={`Attempts of ${e.type} to subscription ${d.subscriptionId}`} attempts={d.attempts} />
              {d.attemptCount > d.attempts.length && (
                <p className="muted">
                  The latest {d.attempts.length} of {d.attemptCount} attempts: <Link href={`/deliveries/${d.id}`}>all of them</Link>.
                </p>
              )}
            </div>
          ))}
        </section>
      ))}
      {page && (cursors.length > 0 || page.pageInfo.hasNextPage) && (
        <nav aria-label="Event pages" className="inline">
          <button type="button" disabled={cursors.length === 0 || fetching} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer events
          </button>
          <button
            type="button"
            disabled={!page.pageInfo.hasNextPage || !page.pageInfo.endCursor || fetching}
            onClick={() => setCursors((c) => [...c, page.pageInfo.endCursor!])}
          >
            Older events
          </button>
        </nav>
      )}
    </>
  );
}

function Advance({ order, onMoved }: { order: Order; onMoved: () => void }) {
  const may = useMay('advanceOrder');
  const [result, advance] = useMutation(AdvanceOrder);
  const [to, setTo] = useState('');
  const [reason, setReason] = useState('');
  if (!may) return null;
  const next = TRANSITIONS.filter((t) => t.from.includes(order.status as OrderStatus));
  if (next.length === 0) return <p className="muted">The order is {order.status}: it moves no further.</p>;
  const errors = apiErrors(result.error);
  // Preselected: the next step of the happy path (created → courier_assigned → ...), else the first allowed move.
  const chosen = next.find((t) => t.to === to) ?? next.find((t) => t.to === nextHappyStep(order.status as OrderStatus)) ?? next[0]!;
  return (
    <section aria-labelledby="advance">
      <h2 id="advance">Advance the order</h2>
      <form
        className="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          const done = await advance({
            orderId: order.id,
            to: chosen.to,
            reason: chosen.to === 'cancelled' ? reason || undefined : undefined,
          });
          if (done.data) {
            setTo('');
            setReason('');
            onMoved();
          }
        }}
      >
        <Field label="Move to" error={errorFor(errors, 'to')}>
          <select value={chosen.to} onChange={(e) => setTo(e.target.value)} aria-invalid={Boolean(errorFor(errors, 'to'))}>
            {next.map((t) => (
              <option key={t.to} value={t.to}>
                {t.to} ({t.event})
              </option>
            ))}
          </select>
        </Field>
        {chosen.to === 'cancelled' && (
          <Field label="Reason" error={errorFor(errors, 'reason')}>
            <input value={reason} onChange={(e) => setReason(e.target.value)} aria-invalid={Boolean(errorFor(errors, 'reason'))} />
          </Field>
        )}
        <button type="submit" className="primary" disabled={result.fetching}>
          Advance
        </button>
      </form>
      <p className="muted">{chosen.description}</p>
      <ErrorList errors={errors} exceptParams={['to', 'reason']} />
    </section>
  );
}
