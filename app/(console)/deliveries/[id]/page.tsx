'use client';

import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { AttemptDetails } from '../../../_console/deliveries/attempts';
import { refreshDelay } from '../../../_console/deliveries/live';
import { Outcome } from '../../../_console/deliveries/outcome';
import { graphql } from '../../../_console/graphql';
import { IdLink, PartnerCell, UrlText } from '../../../_console/ui/cells';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';
import { formatTime } from '../../../_console/ui/format';
import { usePoll } from '../../../_console/ui/use-poll';
import { useMay } from '../../../_console/viewer';

const DeliveryPage = graphql(`
  query DeliveryPage($id: ID!) {
    delivery(id: $id) {
      id
      eventId
      eventType
      subscriptionId
      partnerId
      partnerName
      environment
      orderId
      outcome
      attemptCount
      createdAt
      lastAttemptAt
      nextAttemptAt
      replayId
      url
      attempts {
        id
        number
        trigger
        requestedBy
        startedAt
        durationMs
        requestHeaders {
          name
          value
        }
        responseStatus
        responseHeaders {
          name
          value
        }
        responseBodyExcerpt
        errorKind
        errorMessage
        resolvedAddress
      }
    }
  }
`);

const EventEnvelope = graphql(`
  query EventEnvelope($id: ID!) {
    event(id: $id) {
      id
      envelope
    }
  }
`);

const Redeliver = graphql(`
  mutation Redeliver($eventId: ID!, $webhookId: ID) {
    redeliverEvent(eventId: $eventId, webhookId: $webhookId) {
      eventId
      webhookIds
    }
  }
`);

// One delivery's attempt is what an operator who just clicked Redeliver waits for.
const REDELIVERY_MS = 1000;

export default function DeliveryDetail() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error, fetching }, refetch] = useQuery({ query: DeliveryPage, variables: { id } });
  const delivery = data?.delivery;
  const [event] = useQuery({ query: EventEnvelope, variables: { id: delivery?.eventId ?? '' }, pause: !delivery });
  // Live while it is pending: every second while an attempt is on its way or due, and when a scheduled retry is
  // due while it waits for one (a retry hours away is not watched every second). After a redelivery, the page
  // says it waits until the new attempt is recorded.
  const [watchFrom, setWatchFrom] = useState<number | null>(null);
  const watching = watchFrom !== null && !!delivery && delivery.attemptCount <= watchFrom;
  usePoll(refetch, refreshDelay(delivery ? [delivery] : [], Date.now(), REDELIVERY_MS));

  if (fetching && !data) return <p aria-busy="true">Loading…</p>;
  if (!delivery) {
    return (
      <>
        <h1>Delivery</h1>
        <ErrorList errors={apiErrors(error)} />
        {!error && <p>There is no delivery {id}.</p>}
      </>
    );
  }
  const envelope = event.data?.event?.envelope;
  return (
    <>
      <p>
        <Link href="/deliveries">← Deliveries</Link>
      </p>
      <h1>
        Delivery <code>{delivery.id}</code>
      </h1>
      <dl className="facts">
        <dt>Outcome</dt>
        <dd>
          <Outcome value={delivery.outcome} /> after {delivery.attemptCount} attempt{delivery.attemptCount === 1 ? '' : 's'}
          {delivery.nextAttemptAt && <> (next {formatTime(delivery.nextAttemptAt)})</>}
        </dd>
        <dt>Event</dt>
        <dd>
          {delivery.eventType} <IdLink id={delivery.eventId} href={`/events?id=${delivery.eventId}`} />
        </dd>
        <dt>Subscription</dt>
        <dd>
          <IdLink id={delivery.subscriptionId} href={`/deliveries?subscriptionId=${delivery.subscriptionId}`} />{' '}
          <UrlText url={delivery.url} />
        </dd>
        <dt>Partner</dt>
        <dd>
          <PartnerCell id={delivery.partnerId} name={delivery.partnerName} environment={delivery.environment} />
        </dd>
        {delivery.orderId && (
          <>
            <dt>Order</dt>
            <dd>
              <IdLink id={delivery.orderId} href={`/orders/${delivery.orderId}`} />
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{formatTime(delivery.createdAt)}</dd>
        {delivery.replayId && (
          <>
            <dt>Last replay</dt>
            <dd>
              <IdLink id={delivery.replayId} href={`/replays?subscriptionId=${delivery.subscriptionId}`} />
            </dd>
          </>
        )}
      </dl>
      <RedeliverButton
        eventId={delivery.eventId}
        webhookId={delivery.subscriptionId}
        onSent={(sent) => {
          setWatchFrom(sent ? delivery.attemptCount : null);
          refetch({ requestPolicy: 'network-only' });
        }}
      />
      {watching && (
        <p role="status" aria-busy="true">
          Waiting for the new attempt…
        </p>
      )}
      <h2 id="attempts">Attempts</h2>
      {delivery.attempts.length === 0 ? (
        <p className="muted">Not attempted yet.</p>
      ) : (
        delivery.attempts.map((a, i) => <AttemptDetails key={a.id} attempt={a} open={i === delivery.attempts.length - 1} />)
      )}
      <h2 id="envelope">Event envelope</h2>
      <p className="muted">What every attempt sent as the body.</p>
      <ErrorList errors={apiErrors(event.error)} />
      {envelope ? <pre aria-labelledby="envelope">{pretty(envelope)}</pre> : <p aria-busy="true">Loading…</p>}
    </>
  );
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function RedeliverButton({
  eventId,
  webhookId,
  onSent,
}: {
  eventId: string;
  webhookId: string;
  /** `sent` false: the delivery was still pending (in flight or waiting for a retry), so nothing was sent again. */
  onSent: (sent: boolean) => void;
}) {
  const may = useMay('redeliverEvent');
  const [result, redeliver] = useMutation(Redeliver);
  if (!may) return null;
  return (
    <div className="actions">
      <button
        type="button"
        className="primary"
        disabled={result.fetching}
        onClick={async () => {
          const done = await redeliver({ eventId, webhookId });
          if (done.data) onSent(done.data.redeliverEvent.webhookIds.includes(webhookId));
        }}
      >
        Redeliver to this subscription
      </button>
      {result.data && (
        <span role="status">
          {' '}
          {result.data.redeliverEvent.webhookIds.includes(webhookId) ? (
            <>
              Sent again with the same event id <code>{result.data.redeliverEvent.eventId}</code>.
            </>
          ) : (
            'Not sent again: this delivery is still pending (an attempt on its way or a retry scheduled).'
          )}
        </span>
      )}
      <ErrorList errors={apiErrors(result.error)} />
    </div>
  );
}
