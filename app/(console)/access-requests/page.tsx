'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, type ResultOf } from '../../_console/graphql';
import { ConfirmButton } from '../../_console/ui/confirm';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { useUrlState } from '../../_console/ui/url-state';
import { useMay } from '../../_console/viewer';

const AccessRequestsPage = graphql(`
  query AccessRequestsPage($status: AccessRequestStatus) {
    accessRequests(first: 100, status: $status) {
      nodes {
        id
        company
        contactName
        contactEmail
        website
        expectedMonthlyOrders
        useCase
        status
        confirmedAt
        decidedBy
        decidedAt
        reason
        partnerId
      }
    }
  }
`);

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

type Row = ResultOf<typeof AccessRequestsPage>['accessRequests']['nodes'][number];
const STATUSES = ['new', 'approved', 'rejected'] as const;
type Status = (typeof STATUSES)[number];

export default function AccessRequests() {
  const [state, setState] = useUrlState(['status']);
  const status: Status = STATUSES.find((s) => s === state.status) ?? 'new';
  const [{ data, error }, refetch] = useQuery({ query: AccessRequestsPage, variables: { status } });
  const refresh = () => refetch({ requestPolicy: 'network-only' });
  const mayDecide = useMay('approveAccessRequest');
  return (
    <>
      <h1>Access requests</h1>
      <p>Requests from the public /access page, once their contact has confirmed the address.</p>
      <label>
        Status{' '}
        <select value={status} onChange={(e) => setState({ status: e.target.value })}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <ErrorList errors={apiErrors(error)} />
      <DataTable
        caption={`Access requests: ${status}`}
        columns={columns(status, mayDecide, refresh)}
        rows={data?.accessRequests.nodes ?? []}
        empty={`No ${status} requests.`}
      />
    </>
  );
}

function columns(status: Status, mayDecide: boolean, refresh: () => void): ColumnDef<Row, unknown>[] {
  const base: ColumnDef<Row, unknown>[] = [
    { header: 'Company', cell: ({ row }) => <Company row={row.original} /> },
    { header: 'Contact', cell: ({ row }) => `${row.original.contactName} <${row.original.contactEmail}>` },
    { header: 'Orders a month', cell: ({ row }) => row.original.expectedMonthlyOrders ?? '—' },
    { header: 'Use case', accessorKey: 'useCase' },
    { header: 'Confirmed', cell: ({ row }) => formatTime(row.original.confirmedAt) },
  ];
  if (status === 'new') {
    return mayDecide ? [...base, { header: 'Decision', cell: ({ row }) => <Decide row={row.original} onDecided={refresh} /> }] : base;
  }
  return [
    ...base,
    { header: 'Decided by', cell: ({ row }) => row.original.decidedBy ?? '—' },
    { header: 'Decided', cell: ({ row }) => formatTime(row.original.decidedAt) },
    status === 'approved'
      ? {
          header: 'Partner',
          cell: ({ row }) => (row.original.partnerId ? <a href={`/partners/${row.original.partnerId}`}>{row.original.partnerId}</a> : '—'),
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
        <label>
          <span className="visually-hidden">Reason for rejecting {row.company} (e-mailed to the contact)</span>
          <input value={reason} placeholder="Reason (e-mailed)" onChange={(e) => setReason(e.target.value)} />
          {errorFor(errors, 'reason') && <span className="error">{errorFor(errors, 'reason')}</span>}
        </label>
        <button type="submit" disabled={busy}>
          Reject
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['reason']} />
    </div>
  );
}
