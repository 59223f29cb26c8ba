'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { useMutation } from 'urql';
import { Outcome } from '../deliveries/outcome';
import { graphql } from '../graphql';
import { IdLink, ShortId, TimeCell } from '../ui/cells';
import { ConfirmButton } from '../ui/confirm';
import { apiErrors, ErrorList } from '../ui/errors';
import { progressOf, progressText, stateOf } from './progress';
import type { Replay } from './query';

const CancelReplay = graphql(`
  mutation CancelReplay($replayId: ID!) {
    cancelReplay(replayId: $replayId) {
      id
      status
    }
  }
`);

// Cancel is offered while its pages are being sent.
const ACTIVE: ReadonlySet<string> = new Set(['queued', 'running']);

/** The replay list's columns (replay-list.tsx, on the replays page and a subscription's deliveries); the last cancels. */
export function replayColumns({ mayCancel, onChanged }: { mayCancel: boolean; onChanged: () => void }): ColumnDef<Replay, unknown>[] {
  return [
    {
      header: 'Replay',
      cell: ({ row }) => (
        <>
          <ShortId id={row.original.id} />
          <br />
          <IdLink
            id={row.original.subscriptionId}
            href={`/deliveries?subscriptionId=${row.original.subscriptionId}`}
            label={`Deliveries of subscription ${row.original.subscriptionId}`}
          />
        </>
      ),
    },
    {
      header: 'Window',
      cell: ({ row }) => (
        <>
          <TimeCell at={row.original.since} /> – <TimeCell at={row.original.until} />
          <br />
          <span className="muted">
            {row.original.only}
            {row.original.eventTypes ? `, ${row.original.eventTypes.join(', ')}` : ''}
          </span>
        </>
      ),
    },
    { header: 'Status', cell: ({ row }) => <StatusCell replay={row.original} /> },
    { header: 'Progress', cell: ({ row }) => <ProgressCell replay={row.original} /> },
    { header: 'Asked by', accessorKey: 'requestedBy' },
    { header: 'Action', cell: ({ row }) => <CancelCell replay={row.original} mayCancel={mayCancel} onChanged={onChanged} /> },
  ];
}

function StatusCell({ replay: r }: { replay: Replay }) {
  const state = stateOf(r);
  return (
    <>
      <Outcome value={state.word} />
      {r.phase === 'settled' && r.completedAt && (
        <span className="muted">
          {' '}
          <TimeCell at={r.completedAt} />
        </span>
      )}
      {state.note && <span className="muted"> ({state.note})</span>}
      {r.phase === 'retrying' && r.nextRetryAt && (
        <>
          <br />
          <span className="muted">
            next retry <TimeCell at={r.nextRetryAt} />
          </span>
        </>
      )}
    </>
  );
}

function ProgressCell({ replay: r }: { replay: Replay }) {
  const { value, max } = progressOf(r);
  const labelId = `replay-progress-${r.id}`;
  return (
    <>
      <span id={labelId}>
        Progress of replay {r.id}: {progressText(r)}
      </span>
      <br />
      <progress aria-labelledby={labelId} value={value} max={max} />
    </>
  );
}

function CancelCell({ replay: r, mayCancel, onChanged }: { replay: Replay; mayCancel: boolean; onChanged: () => void }) {
  const [result, cancel] = useMutation(CancelReplay);
  return (
    <>
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
    </>
  );
}
