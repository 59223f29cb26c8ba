'use client';

import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { AttemptDetails } from '../../../_console/deliveries/attempts';
import { Outcome } from '../../../_console/deliveries/outcome';
import { graphql } from '../../../_console/graphql';
import { IdLink, PartnerCell, UrlText } from '../../../_console/ui/cells';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';
import { formatTime } from '../../../_console/ui/format';
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

export default function DeliveryDetail() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error, fetching }, refetch] = useQuery({ query: DeliveryPage, variables: { id } });
  const delivery = data?.delivery;
  const [event] = useQuery({ query: EventEnvelope, variables: { id: delivery?.eventId ?? '' }, pause: !delivery });
  // After a redelivery, re-read every second until its attempt is recorded (or the delivery settles).
  const [watchFrom, setWatchFrom] = useState<number | null>(null);
  const watching = watchFrom !== null && delivery && (delivery.attemptCount <= watchFrom || delivery.outcome === 'pending');
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), 1000);
    return () => clearInterval(timer);
  }, [watching, refetch]);

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
        onSent={() => {
          setWatchFrom(delivery.attemptCount);
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

function RedeliverButton({ eventId, webhookId, onSent }: { eventId: string; webhookId: string; onSent: () => void }) {
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
          if (done.data) onSent();
        }}
      >
        Redeliver to this subscription
      </button>
      {result.data && (
        <span role="status">
          {' '}
          Sent again with the same event id <code>{result.data.redeliverEvent.eventId}</code>.
        </span>
      )}
      <ErrorList errors={apiErrors(result.error)} />
    </div>
  );
}
