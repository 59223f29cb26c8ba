'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { Outcome, ResponseStatus } from '../../_console/deliveries/outcome';
import { IdLink, PartnerCell, ShortId, timeColumn, UrlText } from '../../_console/ui/cells';
import type { DeliveryRow } from './query';

// Nine columns in 1,280 px: ids short, the URL wrapped within its own column, the partner by name.
export const columns: ColumnDef<DeliveryRow, unknown>[] = [
  {
    header: 'Delivery',
    cell: ({ row }) => <IdLink id={row.original.id} href={`/deliveries/${row.original.id}`} label={`Open delivery ${row.original.id}`} />,
  },
  timeColumn('Created', (r) => r.createdAt),
  {
    header: 'Event',
    cell: ({ row }) => (
      <>
        {row.original.eventType}
        <br />
        <IdLink id={row.original.eventId} href={`/events?id=${row.original.eventId}`} />
      </>
    ),
  },
  { header: 'Outcome', cell: ({ row }) => <Outcome value={row.original.outcome} /> },
  {
    header: 'Last response',
    cell: ({ row }) => {
      const last = row.original.attempts.at(-1);
      return last ? <ResponseStatus status={last.responseStatus} errorKind={last.errorKind} /> : <span className="muted">—</span>;
    },
  },
  { header: 'Attempts', cell: ({ row }) => row.original.attemptCount },
  {
    header: 'Subscription',
    cell: ({ row }) => (
      <>
        <Link href={`/deliveries?subscriptionId=${row.original.subscriptionId}`} title="Deliveries of this subscription">
          <UrlText url={row.original.url} />
        </Link>
        <br />
        <ShortId id={row.original.subscriptionId} />
      </>
    ),
  },
  {
    header: 'Partner',
    cell: ({ row }) => <PartnerCell id={row.original.partnerId} name={row.original.partnerName} environment={row.original.environment} />,
  },
  { header: 'Order', cell: ({ row }) => <IdLink id={row.original.orderId} href={`/orders/${row.original.orderId}`} /> },
];
