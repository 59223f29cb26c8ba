'use client';

import { useEffect, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { everyMinute, hhmm } from '../_console/overview/minutes';
import { ThroughputChart } from '../_console/overview/throughput-chart';
import { DataTable } from '../_console/ui/data-table';
import { apiErrors, ErrorList } from '../_console/ui/errors';
import { atLeast, formatAge, formatClock, formatPercent } from '../_console/ui/format';
import { useUrlState } from '../_console/ui/url-state';
import { usePoll } from '../_console/ui/use-poll';
import { disabledColumns, failingColumns, failureColumns } from './columns';
import { OverviewPage, type OverviewData } from './query';

const WINDOWS = [
  { minutes: 60, label: 'Last hour' },
  { minutes: 360, label: 'Last 6 hours' },
  { minutes: 1440, label: 'Last 24 hours' },
] as const;
const POLL_MS = 10_000;

export default function Overview() {
  const [url, setUrl] = useUrlState(['window'] as const);
  const windowMinutes = WINDOWS.find((w) => String(w.minutes) === url.window)?.minutes ?? 60;
  const [{ data, error, fetching }, reexecute] = useQuery({ query: OverviewPage, variables: { windowMinutes } });
  const [refreshedAt, setRefreshedAt] = useState<Date | null>(null);

  // Live: every 10 s while the tab is visible.
  usePoll(reexecute, POLL_MS);
  useEffect(() => {
    if (data && !fetching) setRefreshedAt(new Date());
  }, [data, fetching]);

  const overview = data?.overview;
  const errors = apiErrors(error);
  return (
    <>
      <title>Overview · Partner Delivery Platform</title>
      <h1>Overview</h1>
      <div className="toolbar">
        <label>
          Time window
          <select value={windowMinutes} onChange={(e) => setUrl({ window: e.target.value === '60' ? undefined : e.target.value })}>
            {WINDOWS.map((w) => (
              <option key={w.minutes} value={w.minutes}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => reexecute({ requestPolicy: 'network-only' })} disabled={fetching}>
          Refresh now
        </button>
        <p className="muted" data-testid="refreshed">
          {refreshedAt ? `Refreshed at ${formatClock(refreshedAt)}; refreshes every 10 s.` : 'Loading…'}
        </p>
      </div>
      {/* A failed refresh keeps the last figures on screen and says why beside them. */}
      {errors.length > 0 && overview && <p className="error">The last refresh failed; the figures below are from the one before.</p>}
      <ErrorList errors={errors} />
      {overview && <OverviewBody overview={overview} refreshedAt={refreshedAt ?? new Date()} />}
    </>
  );
}

function OverviewBody({ overview, refreshedAt }: { overview: OverviewData; refreshedAt: Date }) {
  const windowLabel = WINDOWS.find((w) => w.minutes === overview.windowMinutes)?.label.toLowerCase() ?? `${overview.windowMinutes} minutes`;
  const minutes = useMemo(() => everyMinute(overview.perMinute, overview.since, refreshedAt), [overview, refreshedAt]);
  const failed = overview.perMinute.reduce((n, m) => n + m.failed, 0);
  const summary = `Delivery attempts per minute, ${windowLabel}: ${overview.attempts - failed} succeeded and ${failed} failed.`;
  return (
    <>
      <section aria-labelledby="figures">
        <h2 id="figures" className="visually-hidden">
          Figures
        </h2>
        <dl className="cards">
          <div className="card">
            <dt>Success rate</dt>
            <dd className={`value ${overview.successRate !== null && overview.successRate < 0.95 ? 'status-bad' : ''}`}>
              {formatPercent(overview.successRate)}
            </dd>
            <dd className="muted">
              of {overview.attempts} attempts, {windowLabel}
            </dd>
          </div>
          <div className="card">
            <dt>Queue depth</dt>
            <dd className="value">{atLeast(overview.pendingDeliveries, overview.backlogCountLimit)}</dd>
            <dd className="muted">deliveries pending, {atLeast(overview.dueDeliveries, overview.backlogCountLimit)} due now</dd>
          </div>
          <div className="card">
            <dt>Oldest waiting delivery</dt>
            <dd className="value">{formatAge(overview.oldestWaitingSeconds)}</dd>
            <dd className="muted">{overview.oldestWaitingSeconds === null ? 'nothing is waiting' : 'since it was due'}</dd>
          </div>
          <div className="card">
            <dt>Subscriptions in trouble</dt>
            <dd className="value">{overview.failingSubscriptions.length}</dd>
            <dd className="muted">failing; {overview.disabledSubscriptions.length} disabled</dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="per-minute">
        <h2 id="per-minute">Deliveries per minute</h2>
        <ThroughputChart minutes={minutes} summary={summary} />
        <details>
          <summary>The minutes with attempts, as a table</summary>
          <table>
            <caption>Attempts per minute by outcome, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Minute</th>
                <th scope="col">Succeeded</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {overview.perMinute.length === 0 && (
                <tr>
                  <td colSpan={3} className="muted">
                    No attempts in this window.
                  </td>
                </tr>
              )}
              {overview.perMinute.map((m) => (
                <tr key={m.minute}>
                  <td>{hhmm(m.minute)}</td>
                  <td>{m.succeeded}</td>
                  <td>{m.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </section>

      <section aria-labelledby="failing">
        <h2 id="failing">Failing subscriptions</h2>
        <DataTable
          caption="Enabled subscriptions whose attempts fail, longest failing first"
          columns={failingColumns}
          rows={overview.failingSubscriptions}
          empty="No subscription is failing."
        />
      </section>

      <section aria-labelledby="disabled">
        <h2 id="disabled">Disabled subscriptions</h2>
        <DataTable
          caption="Disabled subscriptions, most recently changed first"
          columns={disabledColumns}
          rows={overview.disabledSubscriptions}
          empty="No subscription is disabled."
        />
      </section>

      <section aria-labelledby="latest-failures">
        <h2 id="latest-failures">Latest failures</h2>
        <DataTable
          caption={`The newest failed attempts, ${windowLabel}`}
          columns={failureColumns}
          rows={overview.latestFailures}
          empty="No failed attempt in this window."
        />
      </section>
    </>
  );
}
