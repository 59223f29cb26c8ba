'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { IdLink, PartnerCell, timeColumn, UrlText } from '../_console/ui/cells';
import type { Disabled, Failing, Failure } from './query';

const subscriptionLink = (id: string, url: string) => (
  <Link href={`/subscriptions/${id}`}>
    <UrlText url={url} />
  </Link>
);

export const failingColumns: ColumnDef<Failing, unknown>[] = [
  { header: 'Subscription', cell: ({ row }) => subscriptionLink(row.original.id, row.original.url) },
  {
    header: 'Partner',
    cell: ({ row }) => <PartnerCell id={row.original.partnerId} name={row.original.partnerName} environment={row.original.environment} />,
  },
  timeColumn('Failing since', (r) => r.failingSince),
  { header: 'Failed attempts', cell: ({ row }) => row.original.consecutiveFailures ?? '—' },
];

export const disabledColumns: ColumnDef<Disabled, unknown>[] = [
  { header: 'Subscription', cell: ({ row }) => subscriptionLink(row.original.id, row.original.url) },
  {
    header: 'Partner',
    cell: ({ row }) => <PartnerCell id={row.original.partnerId} name={row.original.partnerName} environment={row.original.environment} />,
  },
  { header: 'Reason', cell: ({ row }) => row.original.disabledReason ?? '—' },
];

export const failureColumns: ColumnDef<Failure, unknown>[] = [
  timeColumn('When', (r) => r.startedAt),
  {
    header: 'Partner',
    cell: ({ row }) => <PartnerCell id={row.original.partnerId} name={row.original.partnerName} environment={row.original.environment} />,
  },
  { header: 'Subscription', cell: ({ row }) => subscriptionLink(row.original.subscriptionId, row.original.url) },
  { header: 'Event type', accessorKey: 'eventType' },
  {
    header: 'Error',
    cell: ({ row }) => (
      <>
        <span className="status-bad">
          {row.original.responseStatus ? `HTTP ${row.original.responseStatus}` : row.original.errorKind} (attempt {row.original.number})
        </span>
        {row.original.errorMessage && <div className="muted">{row.original.errorMessage}</div>}
      </>
    ),
  },
  {
    header: 'Deliveries',
    cell: ({ row }) => (
      <IdLink
        id={row.original.eventId}
        href={`/deliveries?eventId=${encodeURIComponent(row.original.eventId)}`}
        label={`Deliveries of event ${row.original.eventId}`}
      />
    ),
  },
];
