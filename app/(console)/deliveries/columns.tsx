'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { Outcome, ResponseStatus } from '../../_console/deliveries/outcome';
import { IdLink, timeColumn } from '../../_console/ui/cells';
import type { DeliveryRow } from './query';

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
        <IdLink
          id={row.original.subscriptionId}
          href={`/deliveries?subscriptionId=${row.original.subscriptionId}`}
          title="Deliveries of this subscription"
        />
        <br />
        <span className="muted url">{row.original.url}</span>
        <br />
        <span className="muted">
          partner <code>{row.original.partnerId}</code>, {row.original.environment}
        </span>
      </>
    ),
  },
  { header: 'Order', cell: ({ row }) => <IdLink id={row.original.orderId} href={`/orders/${row.original.orderId}`} /> },
];
