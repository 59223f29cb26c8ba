'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../_console/graphql';
import { IdLink, timeColumn } from '../../_console/ui/cells';
import { ConfirmButton } from '../../_console/ui/confirm';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { Field } from '../../_console/ui/field';
import type { AccessRequestRow as Row, Status } from './query';

const Approve = graphql(`
  mutation ApproveAccessRequest($id: ID!) {
    approveAccessRequest(id: $id) {
      id
      status
      partnerId
    }
  }
`);

const Reject = graphql(`
  mutation RejectAccessRequest($id: ID!, $reason: String!) {
    rejectAccessRequest(id: $id, reason: $reason) {
      id
      status
    }
  }
`);

/** New requests end in a decision (for those who may take it); decided ones say who decided, and the partner or the reason. */
export function columns(status: Status, mayDecide: boolean, refresh: () => void): ColumnDef<Row, unknown>[] {
  const base: ColumnDef<Row, unknown>[] = [
    { header: 'Company', cell: ({ row }) => <Company row={row.original} /> },
    { header: 'Contact', cell: ({ row }) => `${row.original.contactName} <${row.original.contactEmail}>` },
    { header: 'Orders a month', cell: ({ row }) => row.original.expectedMonthlyOrders ?? '—' },
    { header: 'Use case', accessorKey: 'useCase' },
    timeColumn('Confirmed', (r) => r.confirmedAt),
  ];
  if (status === 'new') {
    return mayDecide ? [...base, { header: 'Decision', cell: ({ row }) => <Decide row={row.original} onDecided={refresh} /> }] : base;
  }
  return [
    ...base,
    { header: 'Decided by', cell: ({ row }) => row.original.decidedBy ?? '—' },
    timeColumn('Decided', (r) => r.decidedAt),
    status === 'approved'
      ? {
          header: 'Partner',
          cell: ({ row }) => <IdLink id={row.original.partnerId} href={`/partners/${row.original.partnerId}`} />,
        }
      : { header: 'Reason', cell: ({ row }) => row.original.reason ?? '—' },
  ];
}

function Company({ row }: { row: Row }) {
  return (
    <>
      {row.company}
      {row.website && (
        <>
          <br />
          <a href={row.website} rel="noreferrer noopener nofollow" target="_blank" className="muted">
            {row.website}
          </a>
        </>
      )}
    </>
  );
}

function Decide({ row, onDecided }: { row: Row; onDecided: () => void }) {
  const [approved, approve] = useMutation(Approve);
  const [rejected, reject] = useMutation(Reject);
  const [reason, setReason] = useState('');
  const errors = [...apiErrors(approved.error), ...apiErrors(rejected.error)];
  const busy = approved.fetching || rejected.fetching;
  return (
    <div className="stacked">
      <ConfirmButton
        label="Approve"
        title={`Approve ${row.company}?`}
        description={`Creates the partner "${row.company}" and its sandbox credential, and e-mails ${row.contactEmail} a one-time link to the key.`}
        confirmLabel="Approve and send credentials"
        disabled={busy}
        onConfirm={async () => {
          if ((await approve({ id: row.id })).data) onDecided();
        }}
      />
      <form
        className="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          if ((await reject({ id: row.id, reason })).data) onDecided();
        }}
      >
        <Field
          label={<span className="visually-hidden">Reason for rejecting {row.company} (e-mailed to the contact)</span>}
          error={errorFor(errors, 'reason')}
        >
          <input value={reason} placeholder="Reason (e-mailed)" onChange={(e) => setReason(e.target.value)} />
        </Field>
        <button type="submit" disabled={busy}>
          Reject
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['reason']} />
    </div>
  );
}
