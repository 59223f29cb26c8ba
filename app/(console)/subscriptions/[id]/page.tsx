'use client';

import Link from 'next/link';
import { useParams } from 'next/navigation';
import type { ReactNode } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../../_console/graphql';
import { apiErrors, ErrorList, errorFor } from '../../../_console/ui/errors';
import { Field } from '../../../_console/ui/field';
import { UrlText } from '../../../_console/ui/cells';
import { atLeast, formatPercent, formatTime } from '../../../_console/ui/format';
import { useUrlState } from '../../../_console/ui/url-state';
import { usePoll } from '../../../_console/ui/use-poll';
import { useMay } from '../../../_console/viewer';
import { HealthCharts } from './charts';
import { NoticesSection } from './notices';
import { StatusToggle } from './status-toggle';

const SubscriptionHealthPage = graphql(`
  query SubscriptionHealthPage($id: ID!, $windowHours: Int!) {
    subscriptionHealth(id: $id, windowHours: $windowHours) {
      subscription {
        id
        partnerId
        url
        environment
        description
        eventFilters
        status
        disabledReason
        failingSince
        updatedAt
      }
      windowHours
      since
      bucketMinutes
      buckets {
        start
        attempts
        succeeded
        p50DurationMs
        p95DurationMs
      }
      attempts
      succeeded
      successRate
      statusClasses {
        statusClass
        attempts
      }
      consecutiveFailures
      pendingDeliveries
      dueDeliveries
      backlogCountLimit
      oldestPendingAt
    }
  }
`);

const WINDOWS = [
  { hours: 1, label: 'Last hour' },
  { hours: 6, label: 'Last 6 hours' },
  { hours: 24, label: 'Last 24 hours' },
  { hours: 72, label: 'Last 3 days' },
  { hours: 168, label: 'Last 7 days' },
];

const HEALTH_POLL_MS = 10_000;

const CLASS_TEXT = { S2XX: '2xx', S3XX: '3xx', S4XX: '4xx', S5XX: '5xx', NONE: 'No HTTP answer (timeout, connection, TLS…)' } as const;

export default function SubscriptionHealth() {
  const { id } = useParams<{ id: string }>();
  const [{ hours }, setUrl] = useUrlState(['hours'] as const);
  const windowHours = Number(hours ?? 24) || 24;
  const [{ data, error, fetching }, refetch] = useQuery({ query: SubscriptionHealthPage, variables: { id, windowHours } });
  // Live every 10 s (the overview's pace: it is an aggregate) while it has a backlog: its attempts, figures and
  // status (a failure may disable it) still move.
  usePoll(refetch, (data?.subscriptionHealth.pendingDeliveries ?? 0) > 0 ? HEALTH_POLL_MS : null);
  const mayToggle = useMay('setSubscriptionStatus');
  const errors = apiErrors(error);
  const health = data?.subscriptionHealth;
  const sub = health?.subscription;
  return (
    <>
      <p>{sub ? <Link href={`/partners/${sub.partnerId}`}>Back to the partner</Link> : <Link href="/partners">All partners</Link>}</p>
      <h1>Subscription health</h1>
      <form className="inline" onSubmit={(e) => e.preventDefault()} aria-label="Time window">
        <Field label={<span id="window-label">Window</span>} error={errorFor(errors, 'windowHours')}>
          <select
            aria-labelledby="window-label"
            value={String(windowHours)}
            onChange={(e) => setUrl({ hours: e.target.value === '24' ? undefined : e.target.value })}
          >
            {WINDOWS.map((w) => (
              <option key={w.hours} value={w.hours}>
                {w.label}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" onClick={() => refetch({ requestPolicy: 'network-only' })} disabled={fetching}>
          Refresh
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['windowHours']} />
      {!health || !sub ? (
        fetching && <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <dl className="pairs">
            <dt>Endpoint</dt>
            <dd>
              <code>
                <UrlText url={sub.url} />
              </code>
            </dd>
            <dt>Subscription</dt>
            <dd>
              <code>{sub.id}</code> ({sub.environment}){sub.description ? `: ${sub.description}` : ''}
            </dd>
            <dt>Events</dt>
            <dd>{sub.eventFilters.length === 0 ? 'every type' : sub.eventFilters.join(', ')}</dd>
            <dt>Status</dt>
            <dd data-testid="subscription-status" className={sub.status === 'enabled' ? 'status-good' : 'status-bad'}>
              {sub.status}
              {sub.disabledReason && ` (${sub.disabledReason.replaceAll('_', ' ')})`}
            </dd>
          </dl>
          {mayToggle && (
            <StatusToggle id={sub.id} status={sub.status} url={sub.url} onChanged={() => refetch({ requestPolicy: 'network-only' })} />
          )}
          <div className="cards" role="group" aria-label="Health at a glance">
            <Card label={`Success rate, ${WINDOWS.find((w) => w.hours === windowHours)?.label.toLowerCase() ?? `${windowHours} h`}`}>
              {formatPercent(health.successRate)}
              <small className="muted">
                {' '}
                {health.succeeded} of {health.attempts} attempts
              </small>
            </Card>
            <Card label="Consecutive failures">
              {health.consecutiveFailures ?? 0}
              <small className="muted"> {sub.failingSince ? `failing since ${formatTime(sub.failingSince)}` : 'not failing'}</small>
            </Card>
            <Card label="Backlog (deliveries pending)">
              {atLeast(health.pendingDeliveries, health.backlogCountLimit)}
              <small className="muted">
                {' '}
                {atLeast(health.dueDeliveries, health.backlogCountLimit)} due now
                {health.oldestPendingAt ? `; oldest made ${formatTime(health.oldestPendingAt)}` : ''}
              </small>
            </Card>
          </div>
          <HealthCharts buckets={health.buckets} bucketMinutes={health.bucketMinutes} />
          <h2 id="status-classes">Response status classes</h2>
          <table aria-labelledby="status-classes">
            <thead>
              <tr>
                <th scope="col">Class</th>
                <th scope="col">Attempts</th>
                <th scope="col">Share</th>
              </tr>
            </thead>
            <tbody>
              {health.statusClasses.length === 0 ? (
                <tr>
                  <td colSpan={3} className="muted">
                    No attempts in the window.
                  </td>
                </tr>
              ) : (
                health.statusClasses.map((c) => (
                  <tr key={c.statusClass}>
                    <td>{CLASS_TEXT[c.statusClass]}</td>
                    <td>{c.attempts}</td>
                    <td>{formatPercent(c.attempts / health.attempts)}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
          <NoticesSection id={sub.id} />
        </>
      )}
    </>
  );
}

function Card({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="card">
      <div className="muted">{label}</div>
      <div className="value">{children}</div>
    </div>
  );
}
