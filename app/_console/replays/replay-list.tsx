'use client';

import { useEffect, useMemo, useRef } from 'react';
import { useQuery } from 'urql';
import { DataTable } from '../ui/data-table';
import { apiErrors, ErrorList } from '../ui/errors';
import { Pager } from '../ui/pager';
import { usePoll } from '../ui/use-poll';
import { useMay } from '../viewer';
import { replayColumns } from './columns';
import { replayRefreshDelay } from './progress';
import { ReplaysQuery, type ReplayFilter } from './query';

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
  filter?: ReplayFilter;
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
  const mayCancel = useMay('cancelReplay');
  const columns = useMemo(
    () => replayColumns({ mayCancel, onChanged: () => refetch({ requestPolicy: 'network-only' }) }),
    [mayCancel, refetch],
  );
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
      <DataTable
        caption={caption}
        columns={columns}
        rows={replays}
        empty="No replays."
        rowId={(r) => r.id}
        rowAttributes={(r) => ({ 'data-replay': r.id })}
      />
      {onPage && data && <Pager pageInfo={data.replays.pageInfo} after={after} onPage={onPage} />}
    </>
  );
}
