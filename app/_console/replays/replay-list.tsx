'use client';

import { useEffect, useRef } from 'react';
import { useMutation, useQuery } from 'urql';
import { Outcome } from '../deliveries/outcome';
import { graphql, type ResultOf, type VariablesOf } from '../graphql';
import { IdLink, ShortId } from '../ui/cells';
import { ConfirmButton } from '../ui/confirm';
import { apiErrors, ErrorList } from '../ui/errors';
import { formatTime } from '../ui/format';
import { Pager } from '../ui/pager';
import { useMay } from '../viewer';

export const ReplaysQuery = graphql(`
  query Replays($filter: ReplayFilter, $first: Int!, $after: String) {
    replays(filter: $filter, first: $first, after: $after) {
      nodes {
        id
        subscriptionId
        partnerId
        environment
        status
        since
        until
        eventTypes
        only
        matched
        enqueued
        delivered
        failed
        requestedBy
        createdAt
        completedAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const CancelReplay = graphql(`
  mutation CancelReplay($replayId: ID!) {
    cancelReplay(replayId: $replayId) {
      id
      status
    }
  }
`);

type Replay = ResultOf<typeof ReplaysQuery>['replays']['nodes'][number];
type Filter = VariablesOf<typeof ReplaysQuery>['filter'];

// A replay paces itself; once a second is live enough to watch it and cheap (one statement per page).
const POLL_MS = 1000;
const ACTIVE: ReadonlySet<string> = new Set(['queued', 'running']);

/** Replays with their progress, refreshed while any is queued or running. */
export function ReplayList({
  filter,
  first = 25,
  after,
  caption,
  onPage,
  onFinished,
  refresh,
}: {
  filter?: Filter;
  first?: number;
  after?: string;
  caption: string;
  /** Given: a pager under the table (the cursor lives in the caller's URL). */
  onPage?: (after: string | undefined) => void;
  /** Called when a replay of the list ends (the caller's view of deliveries is stale then). */
  onFinished?: () => void;
  /** A new value re-reads the list at once (after a replay was started). */
  refresh?: number;
}) {
  const [{ data, error }, refetch] = useQuery({
    query: ReplaysQuery,
    variables: { filter, first, after },
    requestPolicy: 'cache-and-network',
  });
  const replays = data?.replays.nodes ?? [];
  const active = replays.some((r) => ACTIVE.has(r.status));
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), POLL_MS);
    return () => clearInterval(timer);
  }, [active, refetch]);
  useEffect(() => {
    if (refresh) refetch({ requestPolicy: 'network-only' });
  }, [refresh, refetch]);
  // A replay that ended since the last read (or appeared already ended: a small one finishes within a poll).
  const seen = useRef<Map<string, string> | null>(null);
  useEffect(() => {
    if (!data) return;
    const before = seen.current;
    seen.current = new Map(replays.map((r) => [r.id, r.status]));
    if (!before) return;
    const ended = replays.some((r) => !ACTIVE.has(r.status) && (!before.has(r.id) || ACTIVE.has(before.get(r.id)!)));
    if (ended) onFinished?.();
  }, [data, replays, onFinished]);
  return (
    <>
      <ErrorList errors={apiErrors(error)} />
      <table className="replays" aria-live="off">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Replay</th>
            <th scope="col">Window</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Asked by</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {replays.length === 0 ? (
            <tr>
              <td colSpan={6} className="muted">
                No replays.
              </td>
            </tr>
          ) : (
            replays.map((r) => <ReplayRow key={r.id} replay={r} onChanged={() => refetch({ requestPolicy: 'network-only' })} />)
          )}
        </tbody>
      </table>
      {onPage && data && <Pager pageInfo={data.replays.pageInfo} after={after} onPage={onPage} />}
    </>
  );
}

/** Done out of matched: delivered or failed for good; a finished replay is full whatever it found. */
export function progressOf(r: Pick<Replay, 'status' | 'matched' | 'delivered' | 'failed'>): { value: number; max: number } {
  const max = Math.max(r.matched, 1);
  if (r.status === 'completed') return { value: max, max };
  return { value: Math.min(r.delivered + r.failed, max), max };
}

function ReplayRow({ replay: r, onChanged }: { replay: Replay; onChanged: () => void }) {
  const mayCancel = useMay('cancelReplay');
  const [result, cancel] = useMutation(CancelReplay);
  const { value, max } = progressOf(r);
  const labelId = `replay-progress-${r.id}`;
  return (
    <tr data-replay={r.id}>
      <td>
        <ShortId id={r.id} />
        <br />
        <IdLink
          id={r.subscriptionId}
          href={`/deliveries?subscriptionId=${r.subscriptionId}`}
          label={`Deliveries of subscription ${r.subscriptionId}`}
        />
      </td>
      <td>
        {formatTime(r.since)} – {formatTime(r.until)}
        <br />
        <span className="muted">
          {r.only}
          {r.eventTypes ? `, ${r.eventTypes.join(', ')}` : ''}
        </span>
      </td>
      <td>
        <Outcome value={r.status} />
        {r.completedAt && <span className="muted"> {formatTime(r.completedAt)}</span>}
      </td>
      <td>
        <span id={labelId}>
          Progress of replay {r.id}: {r.delivered} delivered, {r.failed} failed of {r.matched}
        </span>
        <br />
        <progress aria-labelledby={labelId} value={value} max={max} />
      </td>
      <td>{r.requestedBy}</td>
      <td>
        {mayCancel && ACTIVE.has(r.status) && (
          <ConfirmButton
            label="Cancel"
            title={`Cancel replay ${r.id}?`}
            description="Nothing more is sent; what is on its way finishes."
            confirmLabel="Cancel replay"
            disabled={result.fetching}
            onConfirm={async () => {
              const done = await cancel({ replayId: r.id });
              if (done.data) onChanged();
            }}
          />
        )}
        <ErrorList errors={apiErrors(result.error)} />
      </td>
    </tr>
  );
}
