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
import { usePoll } from '../ui/use-poll';
import { useMay } from '../viewer';
import { progressOf, progressText, replayRefreshDelay, stateOf } from './progress';

export const ReplaysQuery = graphql(`
  query Replays($filter: ReplayFilter, $first: Int!, $after: String) {
    replays(filter: $filter, first: $first, after: $after) {
      nodes {
        id
        subscriptionId
        partnerId
        environment
        status
        phase
        settled
        since
        until
        eventTypes
        only
        matched
        enqueued
        delivered
        failed
        skipped
        pending
        retrying
        nextRetryAt
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

// Cancel is offered while its pages are being sent.
const ACTIVE: ReadonlySet<string> = new Set(['queued', 'running']);

/**
 * Replays with their progress, read again while any is sending or delivering, and when the next retry is
 * due while only scheduled retries remain (replayRefreshDelay); not while the tab is hidden.
 */
export function ReplayList({
  filter,
  first = 25,
  after,
  caption,
  onPage,
  onFinished,
  onRefreshDelay,
  refresh,
}: {
  filter?: Filter;
  first?: number;
  after?: string;
  caption: string;
  /** Given: a pager under the table (the cursor lives in the caller's URL). */
  onPage?: (after: string | undefined) => void;
  /** Called when a replay of the list settles (the caller's view of deliveries is stale then). */
  onFinished?: () => void;
  /** Told how often the list reads again (null: it does not): a view of the same deliveries can follow it. */
  onRefreshDelay?: (ms: number | null) => void;
  /** A new value re-reads the list at once (after a replay was started). */
  refresh?: number;
}) {
  const [{ data, error }, refetch] = useQuery({
    query: ReplaysQuery,
    variables: { filter, first, after },
    requestPolicy: 'cache-and-network',
  });
  const replays = data?.replays.nodes ?? [];
  const delay = replayRefreshDelay(replays, Date.now());
  usePoll(refetch, delay);
  useEffect(() => onRefreshDelay?.(delay), [delay, onRefreshDelay]);
  useEffect(() => {
    if (refresh) refetch({ requestPolicy: 'network-only' });
  }, [refresh, refetch]);
  // A replay that settled since the last read (or appeared settled: a small one settles within a poll).
  const seen = useRef<Map<string, boolean> | null>(null);
  useEffect(() => {
    if (!data) return;
    const before = seen.current;
    seen.current = new Map(replays.map((r) => [r.id, r.settled]));
    if (!before) return;
    if (replays.some((r) => r.settled && before.get(r.id) !== true)) onFinished?.();
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

function ReplayRow({ replay: r, onChanged }: { replay: Replay; onChanged: () => void }) {
  const mayCancel = useMay('cancelReplay');
  const [result, cancel] = useMutation(CancelReplay);
  const { value, max } = progressOf(r);
  const state = stateOf(r);
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
        <Outcome value={state.word} />
        {r.phase === 'settled' && r.completedAt && <span className="muted"> {formatTime(r.completedAt)}</span>}
        {state.note && <span className="muted"> ({state.note})</span>}
        {r.phase === 'retrying' && r.nextRetryAt && (
          <>
            <br />
            <span className="muted">next retry {formatTime(r.nextRetryAt)}</span>
          </>
        )}
      </td>
      <td>
        <span id={labelId}>
          Progress of replay {r.id}: {progressText(r)}
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
